package io.meshdns.dnsjava.nativeimage.deployment;

import io.quarkus.deployment.annotations.BuildProducer;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.builditem.FeatureBuildItem;
import io.quarkus.deployment.builditem.GeneratedResourceBuildItem;
import io.quarkus.deployment.builditem.nativeimage.ReflectiveClassBuildItem;
import io.quarkus.deployment.builditem.nativeimage.RuntimeInitializedClassBuildItem;
import io.quarkus.deployment.pkg.builditem.CurateOutcomeBuildItem;
import io.quarkus.maven.dependency.ArtifactKey;
import io.quarkus.maven.dependency.ResolvedDependency;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Build steps of the native-image support: which dnsjava classes are initialised at run time
 * ({@link DnsjavaClassification}), and the catalog's wire types registered for reflection ({@link WireModelTypes}). dnsjava's resolver services are removed by the runtime module's extension
 * descriptor ({@code removed-resources.dnsjava:dnsjava}), which Quarkus applies in every launch mode.
 *
 * <p>The classification is written to {@value #LISTING} in the application (one line per class:
 * {@code run-time <class> <reason>}; {@code unloadable <class> <why>} for a listed class that cannot be loaded
 * at all, which is left out of the native build's list; then {@code removed <resource>}), so a JVM-mode test
 * and an operator can see what a native build of this very application would be told.
 */
public final class DnsjavaNativeProcessor {

    static final String FEATURE = "meshdns-dnsjava-native";
    /** Where the listing of this build's classification lands in the application. */
    public static final String LISTING = "META-INF/meshdns/dnsjava-native-classification.txt";
    static final ArtifactKey DNSJAVA = ArtifactKey.fromString("dnsjava:dnsjava");

    @BuildStep
    FeatureBuildItem feature() {
        return new FeatureBuildItem(FEATURE);
    }

    @BuildStep
    void classify(CurateOutcomeBuildItem curate, BuildProducer<RuntimeInitializedClassBuildItem> runtimeInitialized,
            BuildProducer<GeneratedResourceBuildItem> listing) {
        Map<String, String> runtime = new TreeMap<>();
        for (ResolvedDependency dependency : curate.getApplicationModel().getDependencies()) {
            if (!dependency.getKey().getGroupId().equals(DNSJAVA.getGroupId())
                    || !dependency.getKey().getArtifactId().equals(DNSJAVA.getArtifactId())) {
                continue;
            }
            dependency.getContentTree().walk(visit -> {
                Optional<String> className = DnsjavaClassification.classNameOf(visit.getRelativePath("/"));
                className.ifPresent(name -> DnsjavaClassification.runtimeReason(name)
                        .ifPresent(reason -> runtime.put(name, reason)));
            });
        }
        StringBuilder text = new StringBuilder();
        // Loadable by the application's own run-time class path (the build's class loader may see more: JNA
        // through a build-time dependency of some extension).
        try (java.net.URLClassLoader application = runtimeClassPath(curate)) {
            if (!loadable(application, "org.xbill.DNS.Header").isEmpty()) {
                throw new IllegalStateException("dnsjava is not on the application's run-time class path: cannot classify it");
            }
            classifyLoadable(runtime, application, runtimeInitialized, text);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        // What the application model removes from dnsjava (declared in the runtime module's extension descriptor,
        // so it applies in every launch mode and to the jar a native image is built from), as it stands.
        curate.getApplicationModel().getRemovedResources().forEach((artifact, resources) -> {
            if (artifact.getGroupId().equals(DNSJAVA.getGroupId()) && artifact.getArtifactId().equals(DNSJAVA.getArtifactId())) {
                new java.util.TreeSet<>(resources).forEach(r -> text.append("removed ").append(r).append(' ')
                        .append(DnsjavaClassification.REMOVED_RESOURCES.getOrDefault(r, "")).append('\n'));
            }
        });
        listing.produce(new GeneratedResourceBuildItem(LISTING, text.toString().getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * The catalog's wire types ({@link WireModelTypes}) for reflection, in every application that carries
     * record-model: discovery writes them and the nodes read them with Jackson, and a native image answers a
     * type it was not told about with an empty object. Derived from the model, so a new kind needs no line here.
     */
    @BuildStep
    void wireModel(CurateOutcomeBuildItem curate, BuildProducer<ReflectiveClassBuildItem> reflective) {
        try (java.net.URLClassLoader application = runtimeClassPath(curate)) {
            WireModelTypes.of(application).ifPresent(types -> reflective.produce(ReflectiveClassBuildItem
                    .builder(types.toArray(String[]::new)).constructors().methods().fields()
                    .reason("meshdns catalog wire model (Jackson)").build()));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void classifyLoadable(Map<String, String> runtime, ClassLoader application,
            BuildProducer<RuntimeInitializedClassBuildItem> runtimeInitialized, StringBuilder text) {
        runtime.forEach((name, reason) -> {
            String unloadable = loadable(application, name);
            if (!unloadable.isEmpty()) {
                // Windows' IPHlpAPI needs JNA, DNSJavaNameService JDK 8's name-service interfaces: neither can be
                // loaded here, so neither can be reached in the image. Naming them for run-time initialisation only
                // put one stack trace per class into every native build's log.
                text.append("unloadable ").append(name).append(' ').append(unloadable).append('\n');
                return;
            }
            runtimeInitialized.produce(new RuntimeInitializedClassBuildItem(name));
            text.append("run-time ").append(name).append(' ').append(reason).append('\n');
        });
    }

    /** The application's run-time class path (its own classes and every run-time dependency), over the JDK's. */
    static java.net.URLClassLoader runtimeClassPath(CurateOutcomeBuildItem curate) {
        java.util.List<java.net.URL> urls = new java.util.ArrayList<>();
        java.util.function.Consumer<ResolvedDependency> add = d -> d.getResolvedPaths().forEach(p -> {
            try {
                urls.add(p.toUri().toURL());
            } catch (java.net.MalformedURLException e) {
                throw new IllegalStateException(e);
            }
        });
        add.accept(curate.getApplicationModel().getAppArtifact());
        curate.getApplicationModel().getRuntimeDependencies().forEach(add);
        return new java.net.URLClassLoader(urls.toArray(java.net.URL[]::new), ClassLoader.getPlatformClassLoader());
    }

    /** Empty when {@code name} can be loaded (not initialised) by {@code loader}; else why not. */
    static String loadable(ClassLoader loader, String name) {
        try {
            Class.forName(name, false, loader);
            return "";
        } catch (ClassNotFoundException | LinkageError e) {
            return "(cannot be loaded: " + e + ")";
        }
    }
}
