package io.meshdns.it.operator;

import io.meshdns.testsupport.QuarkusJarProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The packaged jars as an operator meets them: a bad value stops the start with one first line on stderr,
 * {@code meshdns: invalid configuration: <key>=<value>: <why>}, exit code 2 and no stack trace; {@code --help}
 * and {@code -h} print the main keys and exit 0 without starting anything. Covers SmallRye's own conversion
 * and "required" errors as well as each service's validators.
 */
class StartupErrorsTest {
    /** Keeps every case off the machine's real ports and clusters. */
    private static final List<String> QUIET = List.of("-Dquarkus.http.port=0", "-Dmeshdns.dns.port=0",
            "-Dmeshdns.dns.upstreams=127.0.0.1:9", "-Dmeshdns.discovery.enabled-local-cluster=false");

    @ParameterizedTest(name = "{0}: -D{1}={2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
            // module | key | value | why (the line's tail)
            "dns-service | meshdns.dns.port | abc | 'abc' is not a number",
            "dns-service | meshdns.dns.port | 70000 | 70000 is outside 0..65535",
            "dns-service | meshdns.dns.forward.policy | bogus | 'bogus' is not one of sequential, random, round-robin",
            "dns-service | meshdns.dns.cache.max-entries | many | Expected an integer value, got \"many\"",
            "discovery-service | meshdns.discovery.batch-window | soon | Invalid duration: soon",
            "discovery-service | meshdns.discovery.heartbeat-interval | 45s | must be at most half of quarkus.http.idle-timeout (PT1M), or the HTTP server closes quiet watch streams between heartbeats, got PT45S",
            "discovery-service | meshdns.discovery.cluster-health.interval | 0s | must be positive, got PT0S",
            "discovery-service | meshdns.discovery.cluster-health.timeout | -1s | must be positive, got PT-1S",
            "discovery-service | meshdns.discovery.cluster-health.unhealthy-threshold | 0 | must be at least 1, got 0",
            "discovery-service | meshdns.discovery.cluster-health.gateways.west | nohost | 'nohost' is not host:port",
            "dns-service | meshdns.dns.multicluster.unhealthy-clusters | bogus | 'bogus' is not one of [keep, drop]",
            "dns-service | meshdns.dns.locality.order | bogus | 'bogus' is not one of [zone, cluster, none]",
            "discovery-service | meshdns.discovery.cluster-name | Not_A_Label | must be a DNS label (lower case letters, digits, '-'), got 'Not_A_Label'",
            "dns-service | meshdns.http.allowed-hosts | bad_name! | 'bad_name!' is not a host name",
            "dns-service | meshdns.dns.upstreams | https://192.0.2.1 | 'https://192.0.2.1' has the scheme 'https://': only dns:// (plain, the default) and tls:// (DNS over TLS) are served",
            "dns-service | meshdns.dns.upstreams | tls://192.0.2.1 | 'tls://192.0.2.1' needs the server name its certificate carries: tls://192.0.2.1#dns.example.net, or meshdns.dns.forward.tls.server-name",
            "exposure-service | meshdns.exposure.policy | bogus | 'bogus' is not one of sync, upsert-only, create-only",
    })
    void badValueStopsTheStartWithOneLine(String module, String key, String value, String why) throws Exception {
        Result r = run(module, List.of("-D" + key + "=" + value), List.of());
        assertEquals(2, r.exit, r.describe());
        assertEquals("meshdns: invalid configuration: " + key + "=" + value + ": " + why, r.firstStderrLine(), r.describe());
        assertNoStackTrace(r);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"exposure-service"})
    void aMissingRequiredKeyIsNamed(String module) throws Exception {
        Result r = run(module, List.of(), List.of());
        assertEquals(2, r.exit, r.describe());
        assertEquals("meshdns: invalid configuration: meshdns.exposure.policy=<unset>: required, and not set", r.firstStderrLine(), r.describe());
        assertNoStackTrace(r);
    }

    /** A misspelt key under a mapped prefix: SmallRye's own first line ("Configuration validation failed:") names nothing. */
    @ParameterizedTest(name = "{0}: -D{1}")
    @CsvSource({"dns-service, meshdns.dns.forward.polcy", "discovery-service, meshdns.discovery.batch-windw",
            "exposure-service, meshdns.exposure.polcy"})
    void anUnknownKeyIsNamed(String module, String key) throws Exception {
        List<String> properties = module.equals("exposure-service")
                ? List.of("-D" + key + "=x", "-Dmeshdns.exposure.policy=sync") : List.of("-D" + key + "=x");
        Result r = run(module, properties, List.of());
        assertEquals(2, r.exit, r.describe());
        assertEquals("meshdns: invalid configuration: " + key + "=x: no such setting (set in a system property): "
                + "check its spelling against --help", r.firstStderrLine(), r.describe());
        assertNoStackTrace(r);
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
            "dns-service, --help, meshdns.dns.discovery-url",
            "dns-service, -h, meshdns.dns.placeholder.enabled",
            "discovery-service, --help, meshdns.discovery.manifest-dirs",
            "discovery-service, -h, meshdns.discovery.shared-token",
            "exposure-service, --help, meshdns.exposure.policy",
            "exposure-service, -h, meshdns.exposure.rfc2136.host",
            "edge, --help, meshdns.discovery.manifest-dirs",
            "edge, -h, meshdns.dns.cluster-name",
    })
    void helpPrintsTheMainKeysAndStartsNothing(String module, String flag, String key) throws Exception {
        Result r = run(module, List.of(), List.of(flag));
        assertEquals(0, r.exit, r.describe());
        assertTrue(r.stdout.startsWith("meshdns " + module), r.describe());
        assertTrue(r.stdout.contains(key), r.describe());
        assertTrue(r.stdout.contains("quarkus.http.port"), r.describe());
        assertFalse(r.stdout.contains("started in"), "the service started: " + r.describe());
        assertEquals("", r.stderr, r.describe());
    }

    /**
     * SO_REUSEPORT asked for where it cannot be had: on the DNS sockets without Netty's epoll (here switched off, as on
     * a machine where its library cannot load), and on the HTTP port with Vert.x on the JDK transport (as in every
     * native executable). One line each, saying what was found and what to change.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "meshdns.dns.reuse-port | -Dio.netty.transport.noNative=true | needs Netty's epoll transport for the DNS sockets, which cannot load here (",
            "quarkus.http.so-reuse-port | -Dquarkus.vertx.prefer-native-transport=false | the HTTP server is on Vert.x's JDK transport here (always so in a native executable), which ignores SO_REUSEPORT",
    })
    void reusePortWhereTheTransportCannotHonourItStopsTheStart(String key, String setting, String why) throws Exception {
        Result r = run("dns-service", List.of(setting, "-D" + key + "=true"), List.of());
        assertEquals(2, r.exit, r.describe());
        assertTrue(r.firstStderrLine().startsWith("meshdns: invalid configuration: " + key + "=true: " + why), r.describe());
        assertNoStackTrace(r);
    }

    /**
     * A start that fails for a reason other than a value still says why, in one line: here the node-local
     * interface cannot be created (no {@code ip} on the PATH, as in an image without iproute2; two instances
     * racing to create the interface fail the same way). Quarkus logs nothing itself when given an exit handler.
     */
    @Test
    void aFailureThatIsNoConfigValueIsNamedInOneLine() throws Exception {
        Path noTools = Files.createTempDirectory("meshdns-no-tools");
        try {
            Result r = run("dns-service", List.of("-Dmeshdns.dns.node-local.enabled=true", "-Dmeshdns.dns.node-local.rules=none",
                    "-Dmeshdns.dns.port=15353"), List.of(), Map.of("PATH", noTools.toString()));
            assertEquals(1, r.exit, r.describe());
            String line = r.firstStderrLine();
            assertTrue(line.startsWith("meshdns: start failed: "), r.describe());
            assertTrue(line.contains("failed (exit -1): Cannot run program \"ip\""), r.describe());
            assertNoStackTrace(r);
        } finally {
            Files.deleteIfExists(noTools);
        }
    }

    private static void assertNoStackTrace(Result r) {
        String all = r.stdout + r.stderr;
        assertFalse(all.contains("\tat "), "stack trace printed: " + r.describe());
        assertFalse(all.contains("Caused by"), "stack trace printed: " + r.describe());
        assertFalse(all.contains("started in"), "the service started: " + r.describe());
    }

    private static Result run(String module, List<String> properties, List<String> args) throws IOException, InterruptedException {
        return run(module, properties, args, Map.of());
    }

    private static Result run(String module, List<String> properties, List<String> args, Map<String, String> env)
            throws IOException, InterruptedException {
        Path jar = QuarkusJarProcess.repositoryRoot().resolve(module).resolve("target/quarkus-app/quarkus-run.jar");
        assertTrue(Files.isRegularFile(jar), jar + " is missing: mvn -B -pl " + module + " -am package -DskipTests");
        List<String> command = new ArrayList<>(List.of(javaBinary(), "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-XX:+UseSerialGC", "-Xmx128m"));
        command.addAll(QUIET);
        command.addAll(properties);
        command.add("-jar");
        command.add(jar.toString());
        command.addAll(args);
        Path out = Files.createTempFile("meshdns-start", ".out");
        Path err = Files.createTempFile("meshdns-start", ".err");
        try {
            ProcessBuilder pb = new ProcessBuilder(command).directory(QuarkusJarProcess.repositoryRoot().toFile())
                    .redirectOutput(out.toFile()).redirectError(err.toFile());
            pb.environment().remove("MESHDNS_STACK_TRACE");
            pb.environment().putAll(env);
            Process p = pb.start();
            if (!p.waitFor(90, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError(module + " " + command + " did not exit within 90 s:\n" + Files.readString(out));
            }
            return new Result(String.join(" ", command), p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    private static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private record Result(String command, int exit, String stdout, String stderr) {
        String firstStderrLine() {
            int nl = stderr.indexOf('\n');
            return nl < 0 ? stderr : stderr.substring(0, nl);
        }

        String describe() {
            return command + "\nexit " + exit + "\n--- stderr\n" + stderr + "--- stdout\n" + stdout;
        }
    }
}
