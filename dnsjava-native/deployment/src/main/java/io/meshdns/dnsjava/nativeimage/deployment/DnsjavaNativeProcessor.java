package io.meshdns.dnsjava.nativeimage.deployment;

import io.quarkus.deployment.annotations.BuildProducer;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.builditem.FeatureBuildItem;
import io.quarkus.deployment.builditem.GeneratedResourceBuildItem;
import io.quarkus.deployment.builditem.nativeimage.RuntimeInitializedClassBuildItem;
import io.quarkus.deployment.pkg.builditem.CurateOutcomeBuildItem;
import io.quarkus.maven.dependency.ArtifactKey;
import io.quarkus.maven.dependency.ResolvedDependency;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Build step of the dnsjava native-image support: which dnsjava classes are initialised at run time
 * ({@link DnsjavaClassification}). dnsjava's resolver services are removed by the runtime module's extension
 * descriptor ({@code removed-resources.dnsjava:dnsjava}), which Quarkus applies in every launch mode.
 *
 * <p>The classification is written to {@value #LISTING} in the application (one line per class:
 * {@code run-time <class> <reason>}, then {@code removed <resource>}), so a JVM-mode test and an operator
 * can see what a native build of this very application would be told.
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
        runtime.forEach((name, reason) -> {
            runtimeInitialized.produce(new RuntimeInitializedClassBuildItem(name));
            text.append("run-time ").append(name).append(' ').append(reason).append('\n');
        });
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
}
