package io.meshdns.it.mesh;

import io.meshdns.it.testing.DiscoveryAndNode;
import io.meshdns.it.testing.Dns;
import io.meshdns.it.testing.ServiceProcess;
import io.meshdns.testsupport.Manifests;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CoreDNS's programming-latency histogram on a node: an EndpointSlice change stamped by the EndpointSlice controller
 * ({@code endpoints.kubernetes.io/last-change-trigger-time}) travels through discovery-service to the packaged
 * dns-service, and the node records how long it took from that instant to answering it, under the service's kind.
 */
class ProgrammingLatencyTest {
    private static final String TOKEN = "programming-token";

    @Test
    void aSliceChangeIsTimedFromItsTriggerToTheNodeAnsweringIt() throws Exception {
        Path dir = Files.createTempDirectory("meshdns-programming");
        Path east = Files.createDirectories(dir.resolve("manifests/east"));
        Path file = east.resolve("db.yaml");
        Files.writeString(file, headless("10.1.0.5", Instant.now().minus(1, ChronoUnit.HOURS)));
        try (DiscoveryAndNode mesh = new DiscoveryAndNode(dir, east.getParent(), TOKEN)) {
            mesh.discovery().property("meshdns.discovery.manifest-poll-interval", "100ms");
            mesh.start();
            ServiceProcess node = mesh.node();
            Dns dns = mesh.dns();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                    .until(() -> dns.a("db.shop.svc.cluster.local").equals(List.of("10.1.0.5")));
            assertEquals(0, count(node), "the first snapshot's slices are old news, not observed");

            Instant trigger = Instant.now().truncatedTo(ChronoUnit.SECONDS);
            Files.writeString(file, headless("10.1.0.6", trigger));
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                    .until(() -> dns.a("db.shop.svc.cluster.local").equals(List.of("10.1.0.6")));
            await().atMost(Duration.ofSeconds(10)).until(() -> count(node) == 1);
            double seconds = sum(node);
            System.out.printf("programming latency: %.3f s from the trigger (whole seconds) to the node answering%n", seconds);
            assertTrue(seconds >= 0 && seconds < 30, seconds + " s");
        }
    }

    private static String headless(String ip, Instant trigger) {
        return Manifests.join(Manifests.namespace("shop"), Manifests.service("shop", "db", "None", "pg", 5432),
                Manifests.endpointSlice("shop", "db", "db-1", "endpoints.kubernetes.io/last-change-trigger-time: \"" + trigger + "\"",
                        "pg", 5432, "endpoints: [{addresses: [\"" + ip + "\"], conditions: {ready: true}}]\n"));
    }

    private static final Pattern COUNT = Pattern.compile(
            "coredns_kubernetes_dns_programming_duration_seconds_count\\{[^}]*service_kind=\"headless_with_selector\"[^}]*} ([0-9.eE+-]+)");
    private static final Pattern SUM = Pattern.compile(
            "coredns_kubernetes_dns_programming_duration_seconds_sum\\{[^}]*service_kind=\"headless_with_selector\"[^}]*} ([0-9.eE+-]+)");

    private static double count(ServiceProcess node) throws Exception {
        return value(node, COUNT);
    }

    private static double sum(ServiceProcess node) throws Exception {
        return value(node, SUM);
    }

    private static double value(ServiceProcess node, Pattern p) throws Exception {
        String metrics = node.get("/q/metrics", null, Duration.ofSeconds(10)).body();
        Matcher m = p.matcher(metrics);
        if (!m.find()) throw new AssertionError("no " + p.pattern() + " in the node's metrics");
        return Double.parseDouble(m.group(1));
    }
}
