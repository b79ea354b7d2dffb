package io.meshdns.it.nativeimage;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.CatalogSnapshot;
import io.meshdns.model.WatchEvent;
import io.meshdns.testsupport.QuarkusJarProcess;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a native image of each application would carry, read from the inputs Quarkus writes without GraalVM
 * ({@code target/native-sources}, made by every application's {@code native-image-inputs} build execution):
 * every resource our code reads at run time is included, and Netty's epoll JNI library with it. A resource a
 * native image lacks fails only when it is read; before this check, every native executable died at start
 * reading its help text.
 */
class NativeImageInputsTest {
    /**
     * The methods of ours that read a resource at run time, and the resources they read. A new caller of
     * {@code getResource*} fails {@link #everyRuntimeResourceReadIsDeclared}: declare its resource in
     * dnsjava-native's {@code NativeResourcesProcessor} and here.
     */
    private static final Map<String, String> RESOURCE_READERS = Map.of(
            "io.meshdns.model.startup.ServiceHelp.text", "the caller's help.txt");
    /** Files of ours that are in the jars but never read by the running application (tests and operators read them). */
    private static final Set<String> NOT_READ_AT_RUN_TIME = Set.of(
            "META-INF/meshdns/api-calls.txt", "META-INF/meshdns/dnsjava-native-classification.txt");
    private static final String EPOLL_LIBRARY = "META-INF/native/libnetty_transport_native_epoll_x86_64.so";
    private static final ObjectMapper JSON = new ObjectMapper();

    @ParameterizedTest
    @ValueSource(strings = {"dns-service", "discovery-service", "exposure-service", "edge"})
    void everyResourceWeShipAndReadIsInTheNativeImage(String module) throws IOException {
        Path target = target(module);
        List<Pattern> included = includedResources(target);
        List<String> missing = new ArrayList<>();
        for (String resource : ourResources(target.resolve("quarkus-app"))) {
            if (NOT_READ_AT_RUN_TIME.contains(resource)) continue;
            if (included.stream().noneMatch(p -> p.matcher(resource).matches())) missing.add(resource);
        }
        assertEquals(List.of(), missing, module + ": resources of ours a native image would not contain");
    }

    /**
     * The catalog's wire types are registered for reflection where they are read and written with Jackson: every
     * kind's entry (found by the in-repo extension from the sealed interface, so a new kind needs no line), and the
     * messages that carry them. Unregistered, a native node would read every entry of that kind as nothing.
     */
    @ParameterizedTest
    @ValueSource(strings = {"dns-service", "discovery-service"})
    void everyCatalogWireTypeIsRegisteredForReflection(String module) throws IOException {
        Set<String> registered = reflectiveClasses(target(module));
        List<String> missing = new ArrayList<>();
        List<Class<?>> wire = new ArrayList<>(List.of(CatalogEntry.class.getPermittedSubclasses()));
        wire.addAll(List.of(CatalogEntry.class, CatalogSnapshot.class, WatchEvent.class));
        for (Class<?> type : wire) {
            if (!registered.contains(type.getName())) missing.add(type.getName());
        }
        assertEquals(List.of(), missing, module + ": wire types a native image could not read");
    }

    /** The class names of reflect-config.json in the runner jar of native-sources. */
    private static Set<String> reflectiveClasses(Path target) throws IOException {
        try (JarFile jar = new JarFile(runnerJar(target).toFile())) {
            JarEntry entry = jar.getJarEntry("META-INF/native-image/reflect-config.json");
            assertTrue(entry != null, target + ": the runner jar has no reflect-config.json");
            Set<String> names = new TreeSet<>();
            for (JsonNode type : JSON.readTree(jar.getInputStream(entry))) names.add(type.path("name").asText());
            return names;
        }
    }

    /**
     * The native builder's heap is capped (quarkus.native.native-image-xmx): unset, it sized itself at about 80 % of
     * the machine and discovery-service's build peaked at 11.1 GB, more than a CI machine has.
     */
    @ParameterizedTest
    @ValueSource(strings = {"dns-service", "discovery-service", "exposure-service", "edge"})
    void theNativeBuildersHeapIsCapped(String module) throws IOException {
        String args = Files.readString(target(module).resolve("native-sources/native-image.args"));
        java.util.regex.Matcher xmx = Pattern.compile("-J-Xmx(\\d+)g\\b").matcher(args);
        assertTrue(xmx.find(), module + ": no -J-Xmx<n>g among native-image's arguments: " + args);
        assertTrue(Integer.parseInt(xmx.group(1)) <= 6, module + ": builder heap " + xmx.group(1) + " GB");
    }

    @ParameterizedTest
    @ValueSource(strings = {"dns-service", "edge"})
    void theEpollTransportIsInTheNativeImage(String module) throws IOException {
        Path target = target(module);
        Path lib = target.resolve("quarkus-app/lib/main");
        try (Stream<Path> jars = Files.list(lib)) {
            List<String> names = jars.map(p -> p.getFileName().toString()).toList();
            assertTrue(names.stream().anyMatch(n -> n.startsWith("io.netty.netty-transport-native-epoll-") && n.contains("linux-x86_64")),
                    module + ": no epoll native jar in " + names);
            assertTrue(names.stream().anyMatch(n -> n.startsWith("io.netty.netty-transport-classes-epoll-")), module);
        }
        assertTrue(includedResources(target).stream().anyMatch(p -> p.matcher(EPOLL_LIBRARY).matches()),
                module + ": " + EPOLL_LIBRARY + " is not included: Netty would fall back to NIO in the native image");
        // The JNI registrations come with Netty's own jar (META-INF/native-image/io.netty/netty-transport-classes-epoll);
        // nothing may exclude them.
        String args = Files.readString(target.resolve("native-sources/native-image.args"));
        assertFalse(args.contains("netty-transport-classes-epoll"), module + ": epoll's native-image configuration is excluded: " + args);
    }

    @ParameterizedTest
    @ValueSource(strings = {"dns-service", "discovery-service", "exposure-service", "edge"})
    void everyRuntimeResourceReadIsDeclared(String module) throws IOException {
        Path app = target(module).resolve("quarkus-app");
        List<Path> ours = ourJars(app);
        List<JarFile> jars = new ArrayList<>();
        for (Path jar : ours) jars.add(new JarFile(jar.toFile()));
        JavaClasses classes;
        try {
            classes = new ClassFileImporter().importJars(jars);
        } finally {
            for (JarFile jar : jars) jar.close();
        }
        assertTrue(classes.size() > 20, module + ": " + classes.size() + " classes of ours");
        Set<String> readers = new TreeSet<>();
        for (var c : classes) {
            for (JavaMethodCall call : c.getMethodCallsFromSelf()) {
                String owner = call.getTargetOwner().getName();
                String name = call.getName();
                boolean resourceRead = (owner.equals(Class.class.getName()) || owner.equals(ClassLoader.class.getName()))
                        && (name.startsWith("getResource") || name.startsWith("getSystemResource"));
                if (resourceRead) readers.add(call.getOrigin().getOwner().getName() + "." + call.getOrigin().getName());
            }
        }
        assertTrue(readers.containsAll(RESOURCE_READERS.keySet()),
                module + ": the known resource readers were not found (is the scan reading our jars?): " + readers);
        readers.removeAll(RESOURCE_READERS.keySet());
        assertEquals(Set.of(), readers, module + ": code that reads a resource at run time, not declared for the native image");
    }

    private static Path target(String module) {
        Path target = QuarkusJarProcess.repositoryRoot().resolve(module).resolve("target");
        Assumptions.assumeTrue(Files.isDirectory(target.resolve("quarkus-app")),
                target + "/quarkus-app is missing: mvn -B -pl " + module + " -am package -DskipTests");
        assertTrue(Files.isDirectory(target.resolve("native-sources")), target + "/native-sources is missing: the "
                + "native-image-inputs execution of quarkus-maven-plugin did not run (-Dmeshdns.skip-native-inputs?)");
        return target;
    }

    /** The regular expressions of resource-config.json's includes in the runner jar of native-sources. */
    private static List<Pattern> includedResources(Path target) throws IOException {
        Path runner = runnerJar(target);
        try (JarFile jar = new JarFile(runner.toFile())) {
            JarEntry entry = jar.getJarEntry("META-INF/native-image/resource-config.json");
            assertTrue(entry != null, runner + " has no resource-config.json");
            JsonNode config = JSON.readTree(jar.getInputStream(entry));
            List<Pattern> patterns = new ArrayList<>();
            for (JsonNode include : config.path("resources").path("includes")) {
                if (include.has("pattern")) patterns.add(Pattern.compile(include.get("pattern").asText()));
                if (include.has("glob")) patterns.add(Pattern.compile(globToRegex(include.get("glob").asText())));
            }
            return patterns;
        }
    }

    private static Path runnerJar(Path target) throws IOException {
        try (Stream<Path> files = Files.list(target.resolve("native-sources"))) {
            return files.filter(p -> p.getFileName().toString().endsWith("-runner.jar")).findFirst()
                    .orElseThrow(() -> new AssertionError("no runner jar in " + target.resolve("native-sources")));
        }
    }

    private static String globToRegex(String glob) {
        return Pattern.quote(glob).replace("**/", "\\E([^/]*/)*\\Q").replace("*", "\\E[^/]*\\Q");
    }

    /** Our jars in a packaged application: its own and the io.meshdns libraries (dnsjava-native's runtime aside). */
    private static List<Path> ourJars(Path app) throws IOException {
        List<Path> jars = new ArrayList<>();
        try (Stream<Path> own = Files.list(app.resolve("app"))) {
            own.filter(p -> p.toString().endsWith(".jar")).forEach(jars::add);
        }
        try (Stream<Path> lib = Files.list(app.resolve("lib/main"))) {
            lib.filter(p -> p.getFileName().toString().startsWith("io.meshdns.")).forEach(jars::add);
        }
        return jars;
    }

    /** Every non-class file in our jars that the application could read as a resource. */
    private static Set<String> ourResources(Path app) throws IOException {
        Set<String> resources = new TreeSet<>();
        for (Path jarPath : ourJars(app)) {
            try (JarFile jar = new JarFile(jarPath.toFile())) {
                jar.stream().map(JarEntry::getName)
                        .filter(n -> !n.endsWith("/") && !n.endsWith(".class"))
                        .filter(n -> !n.startsWith("META-INF/maven/") && !n.equals("META-INF/MANIFEST.MF")
                                && !n.startsWith("META-INF/quarkus-") && !n.equals("META-INF/beans.xml")
                                && !n.equals("META-INF/jandex.idx") && !n.equals("application.properties")
                                && !n.startsWith("META-INF/native-image/") && !n.equals("META-INF/INDEX.LIST"))
                        .forEach(resources::add);
            }
        }
        return resources;
    }
}
