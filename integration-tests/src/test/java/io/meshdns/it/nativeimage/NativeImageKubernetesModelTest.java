package io.meshdns.it.nativeimage;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import io.meshdns.testsupport.QuarkusJarProcess;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * fabric8's Kubernetes model in the native-image inputs of the applications with a Kubernetes client: only the model
 * jars of the API groups each reads, and those fabric8's own always-reached code names. The kubernetes-client
 * extension registers every model class it indexes for reflection, so a model jar that comes back (a new dependency
 * dragging in the whole model) grows every native build; and native-image links at build time, so a model class the
 * client names in reachable code and that no jar has fails the build, which no JVM test would show.
 */
class NativeImageKubernetesModelTest {
    /** What fabric8's client names in code every application reaches (see {@link #ALWAYS_REACHED}). */
    private static final Set<String> FOR_THE_CLIENT = Set.of("common", "core", "admissionregistration", "apps",
            "autoscaling", "batch", "certificates", "coordination", "extensions", "node");
    /** The API groups each application reads as typed objects, beyond those. */
    private static final Map<String, Set<String>> READ = Map.of(
            "discovery-service", Set.of("discovery"),
            "edge", Set.of("discovery"),
            "exposure-service", Set.of("discovery", "networking", "apiextensions"));
    /**
     * fabric8 classes every application reaches: the client (Quarkus registers all its methods for reflection; its
     * handler table names apps, batch, certificates, extensions, node and TokenReview's classes) and the base of
     * every resource operation (scale names autoscaling's).
     */
    private static final List<String> ALWAYS_REACHED = List.of(
            "io.fabric8.kubernetes.client.impl.KubernetesClientImpl",
            "io.fabric8.kubernetes.client.dsl.internal.BaseOperation",
            "io.fabric8.kubernetes.client.dsl.internal.HasMetadataOperation");
    private static final Pattern MODEL_JAR = Pattern.compile("io\\.fabric8\\.kubernetes-model-([a-z]+)-[0-9].*\\.jar");

    @ParameterizedTest
    @ValueSource(strings = {"discovery-service", "exposure-service", "edge"})
    void onlyTheModelJarsTheApplicationNeedsAreInTheNativeImage(String module) throws IOException {
        Set<String> expected = new TreeSet<>(FOR_THE_CLIENT);
        expected.addAll(READ.get(module));
        Set<String> found = new TreeSet<>();
        for (Path jar : libJars(module)) {
            Matcher m = MODEL_JAR.matcher(jar.getFileName().toString());
            if (m.matches()) found.add(m.group(1));
        }
        assertEquals(expected, found, module + ": fabric8 model jars given to native-image");
    }

    @ParameterizedTest
    @ValueSource(strings = {"discovery-service", "exposure-service", "edge"})
    void everyModelClassTheClientAlwaysReachesIsThere(String module) throws IOException {
        Set<String> present = new HashSet<>();
        Path client = null;
        for (Path jar : libJars(module)) {
            String file = jar.getFileName().toString();
            if (!file.startsWith("io.fabric8.")) continue;
            if (file.startsWith("io.fabric8.kubernetes-client-") && Character.isDigit(file.charAt("io.fabric8.kubernetes-client-".length()))) {
                client = jar;
            }
            try (JarFile jf = new JarFile(jar.toFile())) {
                jf.stream().map(e -> e.getName()).filter(n -> n.endsWith(".class"))
                        .forEach(n -> present.add(n.substring(0, n.length() - ".class".length()).replace('/', '.')));
            }
        }
        assertTrue(client != null, module + ": no io.fabric8.kubernetes-client jar among the native-image inputs");
        JavaClasses classes;
        try (JarFile jf = new JarFile(client.toFile())) {
            classes = new ClassFileImporter().importJar(jf);
        }
        Set<String> named = new TreeSet<>();
        for (String name : ALWAYS_REACHED) {
            JavaClass c = classes.get(name);
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                String target = d.getTargetClass().getBaseComponentType().getName();
                if (target.startsWith("io.fabric8.kubernetes.api.model.")) named.add(target);
            }
        }
        // The scan sees class literals (the handler table's): else it would find nothing missing, ever.
        assertTrue(named.contains("io.fabric8.kubernetes.api.model.apps.Deployment"), module + ": " + named);
        Set<String> missing = new TreeSet<>(named);
        missing.removeAll(present);
        assertEquals(Set.of(), missing, module + ": model classes the client names that native-image could not link");
    }

    /**
     * Quarkus registers the reflective hierarchy of an informer handler's type argument unconditionally: for
     * {@code ResourceEventHandler<HasMetadata>} that was every model builder's *Fluent class (1,246 in
     * discovery-service). The model classes themselves are registered only if the analysis reaches them.
     */
    @ParameterizedTest
    @ValueSource(strings = {"discovery-service", "exposure-service", "edge"})
    void theModelsBuildersAreNotRegisteredForReflectionWholesale(String module) throws IOException {
        Path target = QuarkusJarProcess.repositoryRoot().resolve(module).resolve("target");
        Path runner;
        try (Stream<Path> files = Files.list(target.resolve("native-sources"))) {
            runner = files.filter(p -> p.getFileName().toString().endsWith("-runner.jar")).findFirst()
                    .orElseThrow(() -> new AssertionError("no runner jar in " + target.resolve("native-sources")));
        }
        JsonNode config;
        try (JarFile jar = new JarFile(runner.toFile())) {
            config = new ObjectMapper().readTree(jar.getInputStream(jar.getJarEntry("META-INF/native-image/reflect-config.json")));
        }
        Set<String> fluent = new TreeSet<>();
        boolean sawModel = false;
        for (JsonNode entry : config) {
            String name = entry.path("name").asText();
            if (!name.startsWith("io.fabric8.kubernetes.api.model.")) continue;
            sawModel = true;
            if (!entry.has("condition") && name.contains("Fluent")) fluent.add(name);
        }
        assertTrue(sawModel, module + ": no fabric8 model class in reflect-config.json");
        assertTrue(fluent.size() < 100, module + ": " + fluent.size() + " fabric8 *Fluent classes registered for "
                + "reflection unconditionally (a ResourceEventHandler or Watcher typed with HasMetadata or a builder?)");
    }

    /** The jars native-image would be given ({@code target/native-sources/lib}), as NativeImageInputsTest finds them. */
    private static List<Path> libJars(String module) throws IOException {
        Path target = QuarkusJarProcess.repositoryRoot().resolve(module).resolve("target");
        Assumptions.assumeTrue(Files.isDirectory(target.resolve("quarkus-app")),
                target + "/quarkus-app is missing: mvn -B -pl " + module + " -am package -DskipTests");
        Path lib = target.resolve("native-sources/lib");
        assertTrue(Files.isDirectory(lib), lib + " is missing: the native-image-inputs execution of quarkus-maven-plugin "
                + "did not run (-Dmeshdns.skip-native-inputs?)");
        try (Stream<Path> jars = Files.list(lib)) {
            return jars.filter(p -> p.getFileName().toString().endsWith(".jar")).sorted().toList();
        }
    }
}
