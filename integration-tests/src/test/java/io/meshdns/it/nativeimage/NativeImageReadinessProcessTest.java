package io.meshdns.it.nativeimage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.meshdns.testsupport.ImageHeapCheck;
import io.meshdns.testsupport.QuarkusJarProcess;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Native-image readiness of every packaged application, checked on a JVM (no GraalVM reaches these machines):
 * <ul>
 * <li>dnsjava-native's build step ran for the application and the listing it wrote names dnsjava's resolver
 *     side for run-time initialisation;</li>
 * <li>the dnsjava jar the application ships (the same filtered jar a native build is given) has no resolver
 *     services;</li>
 * <li>initialising all of our own classes, as a native build does at build time, initialises none of the
 *     run-time classes and leaves no random generator, address, thread, socket or run-time-class instance in a
 *     static field ({@link ImageHeapCheck});</li>
 * <li>on a JDK with the resolver SPI (18+), dnsjava does not become the JDK's host-name resolver even when its
 *     own opt-in property is set (before the services were removed it logged "Enabling dnsjava SPI" here).</li>
 * </ul>
 */
class NativeImageReadinessProcessTest {
    private static final Duration START = Duration.ofSeconds(90);
    private static final String DNSJAVA_SPI_ENABLED = "Enabling dnsjava SPI";
    /** Quarkus's last start line (after the "started in" line): the start, and its logging, are over. */
    private static final java.util.regex.Pattern INSTALLED_FEATURES = java.util.regex.Pattern.compile("Installed features: (\\[.*\\])");

    @TempDir
    static Path tmp;

    @ParameterizedTest
    @ValueSource(strings = {"dns-service", "discovery-service", "exposure-service", "edge"})
    void thePackagedApplicationIsClassifiedAndShipsNoDnsjavaResolverService(String module) throws Exception {
        Path app = QuarkusJarProcess.repositoryRoot().resolve(module).resolve("target/quarkus-app");
        Assumptions.assumeTrue(Files.isDirectory(app), app + " is missing: mvn -B -pl " + module + " -am package -DskipTests");

        Set<String> runtime;
        try (URLClassLoader generated = new URLClassLoader(new URL[] {app.resolve("quarkus/generated-bytecode.jar").toUri().toURL()}, null)) {
            runtime = ImageHeapCheck.runtimeClassesListed(generated);
            try (var in = generated.getResourceAsStream(ImageHeapCheck.DNSJAVA_LISTING)) {
                String listing = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                assertTrue(listing.contains("removed META-INF/services/java.net.spi.InetAddressResolverProvider"), listing);
            }
        }
        assertTrue(runtime.containsAll(List.of("org.xbill.DNS.Lookup", "org.xbill.DNS.ResolverConfig", "org.xbill.DNS.Header",
                "org.xbill.DNS.SimpleResolver")), runtime.toString());
        // dnsjava's InetAddressResolver implements an interface of JDK 18+: the build step names it only where the
        // JDK that builds can load it (a GraalVM for JDK 21/25 can; this JDK 17 cannot, and then nothing reaches it).
        assertEquals(Runtime.version().feature() >= 18, runtime.contains("org.xbill.DNS.spi.DnsjavaInetAddressResolver"), runtime.toString());
        assertFalse(runtime.contains("org.xbill.DNS.Name"));

        Path dnsjava = libraries(app).stream().filter(p -> p.getFileName().toString().startsWith("dnsjava.dnsjava-"))
                .findFirst().orElseThrow(() -> new AssertionError("no dnsjava jar in " + app));
        try (JarFile jar = new JarFile(dnsjava.toFile())) {
            assertEquals(null, jar.getEntry("META-INF/services/java.net.spi.InetAddressResolverProvider"), dnsjava.toString());
            assertEquals(null, jar.getEntry("META-INF/services/sun.net.spi.nameservice.NameServiceDescriptor"), dnsjava.toString());
            assertTrue(jar.getEntry("org/xbill/DNS/Name.class") != null, "the rest of dnsjava is there");
        }

        List<String> ours = new ArrayList<>();
        List<Path> classPath = new ArrayList<>(libraries(app));
        try (Stream<Path> appJars = Files.list(app.resolve("app"))) {
            appJars.filter(p -> p.toString().endsWith(".jar")).forEach(classPath::add);
        }
        for (Path jar : classPath) {
            String name = jar.getFileName().toString();
            boolean ourJar = jar.getParent().getFileName().toString().equals("app")
                    || name.startsWith("io.meshdns.") && !name.startsWith("io.meshdns.meshdns-dnsjava-native");
            if (ourJar) {
                ours.addAll(ImageHeapCheck.classesInJar(jar, "io.meshdns."));
            }
        }
        assertTrue(ours.size() > 20, "our classes in " + app + ": " + ours.size());
        URL[] urls = classPath.stream().map(NativeImageReadinessProcessTest::url).toArray(URL[]::new);
        // Every class named for run-time initialisation must exist for the image builder: one that cannot be
        // loaded (it needs JNA, or an interface the JDK no longer has) printed a stack trace per class into every
        // native build's log, burying real errors.
        try (URLClassLoader loader = new URLClassLoader(urls, ClassLoader.getPlatformClassLoader())) {
            List<String> unloadable = new ArrayList<>();
            for (String name : runtime) {
                try {
                    Class.forName(name, false, loader);
                } catch (ClassNotFoundException | LinkageError e) {
                    unloadable.add(name + " (" + e + ")");
                }
            }
            assertEquals(List.of(), unloadable, module + ": classes listed for run-time initialisation that cannot be loaded");
        }
        ImageHeapCheck.Result result = ImageHeapCheck.run(urls, ours, runtime, name -> false);
        assertEquals(List.of(), result.runtimeClassesInitialised(), module + result.describe());
        assertEquals(List.of(), result.forbiddenObjects(), module + result.describe());
        assertTrue(result.initialisedClasses().size() > ours.size() / 2,
                module + ": initialised " + result.initialisedClasses().size() + " of " + ours.size() + "; failed " + result.failedToInitialise());
    }

    @Test
    void dnsjavaIsNotTheJdksResolverOfDnsService() throws Exception {
        Path jdk = jdkWithResolverSpi();
        // meshdns.dns.upstreams is resolved with InetAddress.getByName at start, on the thread whose context
        // class loader is the application's: the first host-name lookup, which loads the JDK's resolver.
        try (QuarkusJarProcess p = QuarkusJarProcess.module("dns-service").javaHome(jdk)
                .property("org.dnsjava.spi.enable", "true")
                .properties("quarkus.http.port=0", "meshdns.dns.port=0", "meshdns.dns.upstreams=localhost:9",
                        "meshdns.dns.zone-files=examples/zones/mesh.example.zone")
                .start()) {
            String features = p.awaitLine(INSTALLED_FEATURES, START);
            assertTrue(features.contains("meshdns-dnsjava-native"), "the extension is installed: " + features);
            assertFalse(p.output().contains(DNSJAVA_SPI_ENABLED), p.output());
        }
    }

    @Test
    void dnsjavaIsNotTheJdksResolverOfTheEdge() throws Exception {
        Path jdk = jdkWithResolverSpi();
        Path manifests = Files.createDirectories(tmp.resolve("manifests"));
        try (QuarkusJarProcess p = QuarkusJarProcess.module("edge").javaHome(jdk)
                .property("org.dnsjava.spi.enable", "true")
                .properties("quarkus.http.port=0", "meshdns.dns.port=0", "meshdns.dns.upstreams=localhost:9",
                        "meshdns.discovery.manifest-dirs=" + manifests, "meshdns.discovery.vip-file=" + tmp.resolve("vips.txt"),
                        "meshdns.discovery.shared-token=native-readiness")
                .start()) {
            String features = p.awaitLine(INSTALLED_FEATURES, START);
            assertTrue(features.contains("meshdns-dnsjava-native"), "the extension is installed: " + features);
            assertFalse(p.output().contains(DNSJAVA_SPI_ENABLED), p.output());
        }
    }

    private static List<Path> libraries(Path app) throws IOException {
        List<Path> jars = new ArrayList<>();
        for (String dir : List.of("lib/boot", "lib/main")) {
            try (Stream<Path> s = Files.list(app.resolve(dir))) {
                s.filter(p -> p.toString().endsWith(".jar")).sorted().forEach(jars::add);
            }
        }
        return jars;
    }

    private static URL url(Path p) {
        try {
            return p.toUri().toURL();
        } catch (java.net.MalformedURLException e) {
            throw new IllegalArgumentException(p.toString(), e);
        }
    }

    /**
     * A JDK 18+ to run the jar on: {@code meshdns.test.jdk18} (a JDK home), else {@code JAVA25} (a java binary,
     * as bench/startup takes it), else the newest JDK 18+ under /usr/lib/jvm. Skips the test when there is none.
     */
    static Path jdkWithResolverSpi() throws IOException {
        Optional<Path> chosen = Optional.ofNullable(System.getProperty("meshdns.test.jdk18")).map(Path::of);
        if (chosen.isEmpty() && System.getenv("JAVA25") != null) {
            chosen = Optional.of(Path.of(System.getenv("JAVA25")).getParent().getParent());
        }
        if (chosen.isEmpty() && Files.isDirectory(Path.of("/usr/lib/jvm"))) {
            try (Stream<Path> homes = Files.list(Path.of("/usr/lib/jvm"))) {
                chosen = homes.filter(h -> featureVersion(h) >= 18 && Files.isExecutable(h.resolve("bin/java")))
                        .max(java.util.Comparator.comparingInt(NativeImageReadinessProcessTest::featureVersion));
            }
        }
        Assumptions.assumeTrue(chosen.isPresent(), "no JDK 18+ here (set meshdns.test.jdk18): the resolver SPI needs one");
        return chosen.get();
    }

    private static int featureVersion(Path home) {
        try {
            for (String line : Files.readAllLines(home.resolve("release"))) {
                if (line.startsWith("JAVA_VERSION=")) {
                    String v = line.substring("JAVA_VERSION=".length()).replace("\"", "");
                    return Integer.parseInt(v.split("[.+-]")[0]);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not a JDK home
        }
        return 0;
    }
}
