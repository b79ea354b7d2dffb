package io.meshdns.it.dns;

import io.meshdns.testsupport.LogLines;
import io.meshdns.testsupport.QuarkusJarProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A DaemonSet upgrade on one node, with the packaged jar: instance A serves with reuse-port, dnsperf
 * sends 2000 QPS for 10 s, instance B starts on the same port while A serves, A gets SIGTERM (by its
 * PID), keeps answering for its drain period and closes. At most 0.1% of the queries may be lost (the
 * goal, and what bench/restart measures, is none); with one UDP socket per instance and with two
 * ({@code meshdns.dns.udp-workers=2}: four sockets share the port while both run). Without reuse-port the second instance cannot bind,
 * and says which key would let it.
 */
class ZeroGapRestartTest {
    private static final Duration START = Duration.ofSeconds(60);
    private static final Pattern SENT = Pattern.compile("Queries sent:\\s+(\\d+)");
    private static final Pattern LOST = Pattern.compile("Queries lost:\\s+(\\d+)");

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "udp-workers={0}")
    @ValueSource(ints = {1, 2})
    void anInstanceReplacedUnderLoadLosesNoQueries(int udpWorkers) throws Exception {
        String workers = "meshdns.dns.udp-workers=" + udpWorkers;
        Path queries = tmp.resolve("queries");
        Files.writeString(queries, "registry.mesh.example A\nregistry.mesh.example AAAA\n_registry._tcp.mesh.example SRV\n"
                + "www.mesh.example A\n", StandardCharsets.UTF_8);
        try (QuarkusJarProcess a = dnsService("meshdns.dns.port=0", "meshdns.dns.reuse-port=true", "meshdns.dns.drain=3s", workers)) {
            int port = a.awaitPort(LogLines.DNS_SERVICE_PORT, START);
            assertEquals(udpWorkers > 1, a.output().contains(", " + udpWorkers + " udp workers)"), a.output());
            int aHttp = a.awaitPort(LogLines.QUARKUS_HTTP_PORT, START);
            Process perf = new ProcessBuilder("dnsperf", "-s", "127.0.0.1", "-p", String.valueOf(port), "-d", queries.toString(),
                    "-Q", "2000", "-l", "10", "-c", "8", "-t", "2").redirectErrorStream(true).start();
            try (QuarkusJarProcess b = dnsService("meshdns.dns.port=" + port, "meshdns.dns.reuse-port=true", "meshdns.dns.drain=3s", workers)) {
                Thread.sleep(1000);
                assertEquals(port, b.awaitPort(LogLines.DNS_SERVICE_PORT, START), b.output());
                long term = System.nanoTime();
                a.terminate();
                // Draining, A still answers DNS but no longer says it is ready, so nothing new is steered to it
                // (Quarkus closes its HTTP port as the stop begins: a probe is refused, which counts as not ready).
                java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
                java.net.http.HttpRequest ready = java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create("http://127.0.0.1:" + aHttp + "/q/health/ready")).timeout(Duration.ofSeconds(2)).build();
                int status = 0;
                for (int i = 0; i < 20 && status != 503; i++) {
                    try {
                        status = http.send(ready, java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode();
                    } catch (java.io.IOException refused) {
                        status = 503;
                    }
                    if (status != 503) Thread.sleep(50);
                }
                assertEquals(503, status, "readiness while draining");
                int exit = a.awaitExit(Duration.ofSeconds(20));
                assertTrue(exit == 0 || exit == 143, "A's exit on SIGTERM: " + exit + "\n" + a.output());
                long drained = (System.nanoTime() - term) / 1_000_000;
                assertTrue(a.output().contains("draining: still answering on port " + port), a.output());
                assertTrue(drained >= 2900, "A stopped after " + drained + " ms, before its 3 s drain");
                assertTrue(perf.waitFor(30, TimeUnit.SECONDS), "dnsperf ended");
                String report = new String(perf.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                long sent = number(SENT, report);
                long lost = number(LOST, report);
                System.out.printf("restart under load, %d udp workers: %d sent, %d lost%n", udpWorkers, sent, lost);
                assertTrue(sent >= 19_000, report);
                assertTrue(lost * 1000 <= sent, "lost " + lost + " of " + sent + " (more than 0.1%):\n" + report);
                assertTrue(b.isAlive(), b.output());
            } finally {
                perf.destroyForcibly();
            }
        }
    }

    @Test
    void withoutReusePortASecondInstanceCannotBindAndNamesTheKey() throws Exception {
        try (QuarkusJarProcess a = dnsService("meshdns.dns.port=0", "meshdns.dns.reuse-port=true", "meshdns.dns.drain=0s")) {
            int port = a.awaitPort(LogLines.DNS_SERVICE_PORT, START);
            try (QuarkusJarProcess b = dnsService("meshdns.dns.port=" + port)) {
                assertNotEquals(0, b.awaitExit(START), b.output());
                assertTrue(b.output().contains("meshdns.dns.reuse-port=true lets two share it"), b.output());
            }
        }
    }

    /** Where Netty's epoll cannot load (here switched off), reuse-port stops the start with one line: what was found. */
    @Test
    void reusePortWithoutEpollFailsTheStartSayingWhatWasFound() throws Exception {
        try (QuarkusJarProcess p = dnsService("meshdns.dns.port=0", "meshdns.dns.reuse-port=true", "io.netty.transport.noNative=true")) {
            assertNotEquals(0, p.awaitExit(START), p.output());
            assertTrue(p.output().contains("meshdns.dns.reuse-port")
                    && p.output().contains("needs Netty's epoll transport for the DNS sockets, which cannot load here"), p.output());
        }
    }

    /**
     * Vert.x on the JDK transport, as in every native executable: the DNS sockets are dns-service's own, on epoll, so
     * two instances still share the port (this used to stop the start: reuse-port followed Vert.x's transport).
     */
    @Test
    void withVertxOnTheJdkTransportTwoInstancesStillShareTheDnsPort() throws Exception {
        try (QuarkusJarProcess a = dnsService("meshdns.dns.port=0", "meshdns.dns.reuse-port=true", "meshdns.dns.drain=0s",
                "quarkus.vertx.prefer-native-transport=false")) {
            int port = a.awaitPort(LogLines.DNS_SERVICE_PORT, START);
            try (QuarkusJarProcess b = dnsService("meshdns.dns.port=" + port, "meshdns.dns.reuse-port=true", "meshdns.dns.drain=0s",
                    "quarkus.vertx.prefer-native-transport=false")) {
                assertEquals(port, b.awaitPort(LogLines.DNS_SERVICE_PORT, START), b.output());
                assertTrue(a.output().contains("(udp+tcp, epoll, reuse-port)"), a.output());
                assertTrue(b.output().contains("(udp+tcp, epoll, reuse-port)"), b.output());
                assertTrue(a.isAlive() && b.isAlive(), a.output() + b.output());
            }
        }
    }

    private static QuarkusJarProcess dnsService(String... properties) throws Exception {
        return QuarkusJarProcess.module("dns-service").jvmOptions(QuarkusJarProcess.FAST_START_JVM)
                .properties("quarkus.http.host=127.0.0.1", "quarkus.http.port=0",
                        "meshdns.dns.zone-files=examples/zones/mesh.example.zone", "meshdns.dns.upstreams=127.0.0.1:9")
                .properties(List.of(properties)).start();
    }

    private static long number(Pattern pattern, String text) {
        Matcher m = pattern.matcher(text);
        assertTrue(m.find(), "no /" + pattern + "/ in:\n" + text);
        return Long.parseLong(m.group(1));
    }
}
