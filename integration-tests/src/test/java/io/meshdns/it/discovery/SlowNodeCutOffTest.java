package io.meshdns.it.discovery;

import io.meshdns.testsupport.dns.LoopbackPorts;
import io.meshdns.it.testing.Dns;
import io.meshdns.it.testing.Http;
import io.meshdns.testsupport.Commands;
import io.meshdns.testsupport.QuarkusJarProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A stalled node: the packaged dns-service follows the packaged discovery-service, is frozen (SIGSTOP) while
 * megabytes of deltas flow, and discovery cuts its stream off after {@code watch.max-lag} (the log line names
 * it). Resumed (SIGCONT), dns-service finds its stream ended, refetches the snapshot (If-None-Match on its
 * version), watches again from its version and ends at discovery's current version, answering the last change.
 */
class SlowNodeCutOffTest {
    static final String TOKEN = "slow-node-token";
    /** Services in the file rewritten each round: every round's delta is about 0.5 MB. */
    static final int SERVICES = 2000;
    static final Pattern CUT_OFF = Pattern.compile("watch stream of (\\S+) .*cut off");
    /** The node's own User-Agent in that line: the packaged build's version (never "unknown") and its cluster. */
    static final Pattern CUT_OFF_NAMES_NODE = Pattern.compile("watch stream of \\S+ \\(user agent 'meshdns-dns-service/\\d[^' ]* node=east'\\) cut off");
    static final Pattern APPLIED = Pattern.compile("catalog version applied</th><td>(\\d+)<");

    @TempDir
    Path dir;

    @Test
    void aFrozenNodeIsCutOffAndCatchesUpWhenItResumes() throws Exception {
        Path east = Files.createDirectories(dir.resolve("manifests/east"));
        Path bulk = east.resolve("bulk.yaml");
        writeBulk(bulk, 0);
        int discoveryPort = LoopbackPorts.pick();
        int dnsPort = LoopbackPorts.pick();
        try (QuarkusJarProcess discovery = QuarkusJarProcess.module("discovery-service").jvmOptions(QuarkusJarProcess.FAST_START_JVM)
                .properties("quarkus.http.host=127.0.0.1", "quarkus.http.port=" + discoveryPort,
                        "meshdns.discovery.enabled-local-cluster=false", "meshdns.discovery.cluster-name=east",
                        "meshdns.discovery.manifest-dirs=" + east.getParent(), "meshdns.discovery.manifest-poll-interval=100ms",
                        "meshdns.discovery.vip-file=" + dir.resolve("vips.txt"), "meshdns.discovery.shared-token=" + TOKEN,
                        "meshdns.discovery.watch.max-queued-bytes=64K", "meshdns.discovery.watch.max-lag=1s")
                .start();
             QuarkusJarProcess dns = QuarkusJarProcess.module("dns-service").jvmOptions(QuarkusJarProcess.FAST_START_JVM)
                     .properties("quarkus.http.host=127.0.0.1", "quarkus.http.port=0", "meshdns.dns.port=" + dnsPort,
                             "meshdns.dns.upstreams=127.0.0.1:9", "meshdns.dns.cluster-name=east",
                             "meshdns.dns.discovery-url=http://127.0.0.1:" + discoveryPort, "meshdns.dns.discovery-token=" + TOKEN,
                             "meshdns.dns.discovery.backoff-max=1s")
                     .start()) {
            String discoveryUrl = "http://127.0.0.1:" + discoveryPort;
            Dns node = new Dns(dnsPort);
            try {
                int dnsHttp = dns.awaitPort(Pattern.compile("Listening on: http://127\\.0\\.0\\.1:(\\d+)"), Duration.ofSeconds(120));
                await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                        .until(() -> node.a("svc-7.shop.svc.cluster.local").equals(List.of(ip(0, 7))));

                Commands.run(Duration.ofSeconds(10), "kill", "-STOP", String.valueOf(dns.pid()));
                int round = 0;
                try {
                    // Bounded: 40 versions of 0.5 MB are far more than one loopback socket's buffers hold. Each round
                    // waits for its version (a loaded machine can take seconds to reread the file).
                    long deadline = System.nanoTime() + Duration.ofSeconds(240).toNanos();
                    while (!CUT_OFF.matcher(discovery.output()).find() && round < 40 && System.nanoTime() < deadline) {
                        round++;
                        long before = discoveryVersion(discoveryUrl);
                        writeBulkAtomically(bulk, round, dir);
                        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                                .until(() -> discoveryVersion(discoveryUrl) > before);
                    }
                } finally {
                    Commands.run(Duration.ofSeconds(10), "kill", "-CONT", String.valueOf(dns.pid()));
                }
                Matcher cut = CUT_OFF.matcher(discovery.output());
                assertTrue(cut.find(), "discovery never cut off the frozen node after " + round + " rounds");
                assertTrue(CUT_OFF_NAMES_NODE.matcher(discovery.output()).find(),
                        "the cut-off line does not name the node by its User-Agent: " + cutOffLine(discovery.output()));
                // The first scrape of a C1-only JVM on a loaded machine can take seconds.
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                        .until(() -> metrics(discoveryUrl).contains("meshdns_discovery_watch_cutoffs_total 1.0"));

                final int last = round;
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                        .until(() -> node.a("svc-7.shop.svc.cluster.local").equals(List.of(ip(last, 7))));
                long current = discoveryVersion(discoveryUrl);
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                        .until(() -> applied(dnsHttp) == current);
                assertEquals(List.of(ip(last, SERVICES - 1)), node.a("svc-" + (SERVICES - 1) + ".shop.svc.cluster.local"));
                assertTrue(dns.output().contains("discovery watch ended") || dns.output().contains("unavailable"),
                        "dns-service saw its stream end");
            } catch (Throwable e) {
                throw new AssertionError("discovery output:\n" + tail(discovery.output()) + "\ndns-service output:\n" + tail(dns.output()), e);
            }
        }
    }

    static String ip(int round, int service) {
        return "10." + (100 + round % 100) + "." + (service / 250) + "." + (service % 250 + 1);
    }

    static void writeBulk(Path file, int round) throws Exception {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < SERVICES; i++) {
            b.append("---\napiVersion: v1\nkind: Service\nmetadata: {name: svc-").append(i).append(", namespace: shop}\n")
                    .append("spec:\n  clusterIP: ").append(ip(round, i)).append("\n  ports:\n  - {name: http, port: 80, protocol: TCP}\n");
        }
        Files.writeString(file, b.toString());
    }

    static void writeBulkAtomically(Path file, int round, Path work) throws Exception {
        Path tmp = work.resolve("bulk.tmp");
        writeBulk(tmp, round);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    static long discoveryVersion(String base) throws Exception {
        Matcher m = Pattern.compile("\"version\":(\\d+)").matcher(get(base + "/v1/status", TOKEN));
        assertTrue(m.find());
        return Long.parseLong(m.group(1));
    }

    static long applied(int dnsHttpPort) throws Exception {
        Matcher m = APPLIED.matcher(get("http://127.0.0.1:" + dnsHttpPort + "/status", null));
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    static String metrics(String base) throws Exception {
        return get(base + "/q/metrics", null);
    }

    static String get(String url, String token) throws Exception {
        return Http.get(url, token, Duration.ofSeconds(15)).body();
    }

    static String tail(String s) {
        return s.length() > 6000 ? s.substring(s.length() - 6000) : s;
    }

    private static String cutOffLine(String output) {
        return output.lines().filter(l -> l.contains("cut off")).findFirst().orElse("(none)");
    }

}
