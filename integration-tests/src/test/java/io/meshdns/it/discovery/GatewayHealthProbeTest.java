package io.meshdns.it.discovery;

import io.meshdns.it.testing.DiscoveryAndNode;
import io.meshdns.it.testing.Dns;
import io.meshdns.testsupport.Manifests;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The east-west gateway probe of a packaged discovery-service and a node that reads it: cluster west's gateway
 * stand-in is a loopback TCP listener; stopped, /v1/status marks west's gateway down after the unhealthy threshold
 * and the node ({@code meshdns.dns.multicluster.unhealthy-clusters=drop}) stops answering west's address for a
 * service north also has; started again, up after the healthy threshold and west answers again. With north's gateway
 * stopped too, no cluster that has the name is healthy and the node answers both (fail-open, as Submariner Lighthouse
 * does: an answer that may fail beats a certain NXDOMAIN). east, not probed, carries no verdict.
 */
class GatewayHealthProbeTest {
    private static final String TOKEN = "gateway-token";

    @Test
    void aStoppedGatewayIsMarkedDownAndLeavesTheNodesAnswersUntilItIsUpAgain() throws Exception {
        Path dir = Files.createTempDirectory("meshdns-gateway-probe");
        Path clusters = dir.resolve("manifests");
        String[][] pay = {{"east", null}, {"west", "10.112.0.20"}, {"north", "10.128.0.20"}};
        for (String[] c : pay) {
            Files.createDirectories(clusters.resolve(c[0]));
            Files.writeString(clusters.resolve(c[0]).resolve("ns.yaml"), c[1] == null ? Manifests.namespace("billing")
                    : Manifests.join(Manifests.namespace("billing"), Manifests.service("billing", "pay", c[1], "http", 80)));
        }
        ServerSocket gateway = new ServerSocket();
        gateway.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        int port = gateway.getLocalPort();
        ServerSocket northGateway = new ServerSocket();
        northGateway.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        try (DiscoveryAndNode mesh = new DiscoveryAndNode(dir, clusters, TOKEN)) {
            mesh.discovery().property("meshdns.discovery.cluster-health.gateways.west", "127.0.0.1:" + port)
                    .property("meshdns.discovery.cluster-health.gateways.north", "127.0.0.1:" + northGateway.getLocalPort())
                    .property("meshdns.discovery.cluster-health.interval", "200ms")
                    .property("meshdns.discovery.cluster-health.timeout", "200ms");
            mesh.node().property("meshdns.dns.remote-service-policy", "cluster-ip")
                    .property("meshdns.dns.multicluster.unhealthy-clusters", "drop");
            mesh.start();
            Dns dns = mesh.dns();
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                    .until(() -> status(mesh).contains("\"name\":\"west\",\"local\":false,\"stale\":false"));
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                    .until(() -> sorted(dns.a("pay.billing.svc.cluster.local")).equals(List.of("10.112.0.20", "10.128.0.20")));
            await().atMost(Duration.ofSeconds(10)).until(() -> west(status(mesh)).contains("\"gatewayHealthy\":true"));
            assertTrue(!east(status(mesh)).contains("gatewayHealthy"), "east is not probed");

            gateway.close();
            long stopped = System.nanoTime();
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                    .until(() -> west(status(mesh)).contains("\"gatewayHealthy\":false"));
            System.out.printf("gateway down seen %.1f s after the stop (3 probes 200 ms apart)%n", (System.nanoTime() - stopped) / 1e9);
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).ignoreExceptions()
                    .until(() -> dns.a("pay.billing.svc.cluster.local").equals(List.of("10.128.0.20")));
            System.out.printf("west left the node's answers %.1f s after its gateway stopped%n", (System.nanoTime() - stopped) / 1e9);
            String explain = mesh.explain("pay.billing.svc.cluster.local", "A");
            assertTrue(explain.contains("west (its east-west gateway is down)"), explain);

            gateway = new ServerSocket();
            gateway.setReuseAddress(true);
            gateway.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                    .until(() -> west(status(mesh)).contains("\"gatewayHealthy\":true"));
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).ignoreExceptions()
                    .until(() -> sorted(dns.a("pay.billing.svc.cluster.local")).equals(List.of("10.112.0.20", "10.128.0.20")));

            // Every cluster that has the name down: the node still answers them all, and explain says why.
            gateway.close();
            northGateway.close();
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                    .until(() -> west(status(mesh)).contains("\"gatewayHealthy\":false") && north(status(mesh)).contains("\"gatewayHealthy\":false"));
            // Past the verdicts, give the node a moment to read them: the answers must not narrow to one cluster.
            Thread.sleep(1_000);
            assertEquals(List.of("10.112.0.20", "10.128.0.20"), sorted(dns.a("pay.billing.svc.cluster.local")),
                    "fail-open: with every cluster of the name unhealthy, all are answered");
            String failOpen = mesh.explain("pay.billing.svc.cluster.local", "A");
            assertTrue(failOpen.contains("fail-open"), failOpen);
        } finally {
            gateway.close();
            northGateway.close();
        }
    }

    private static List<String> sorted(List<String> list) {
        return list.stream().sorted().toList();
    }

    private static String status(DiscoveryAndNode mesh) throws Exception {
        return mesh.discoveryGet("/v1/status");
    }

    private static String west(String status) {
        int i = status.indexOf("\"name\":\"west\"");
        return i < 0 ? "" : status.substring(i, status.indexOf('}', i));
    }

    private static String north(String status) {
        int i = status.indexOf("\"name\":\"north\"");
        return i < 0 ? "" : status.substring(i, status.indexOf('}', i));
    }

    private static String east(String status) {
        int i = status.indexOf("\"name\":\"east\"");
        return i < 0 ? "" : status.substring(i, status.indexOf('}', i));
    }
}
