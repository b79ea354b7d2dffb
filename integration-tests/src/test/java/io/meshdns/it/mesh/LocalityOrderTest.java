package io.meshdns.it.mesh;

import io.meshdns.it.testing.DiscoveryAndNode;
import io.meshdns.it.testing.Dns;
import io.meshdns.testsupport.Manifests;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Answers ordered by where the node sits, through a packaged discovery-service reading three manifest clusters and
 * a node on {@code node-1} of cluster east (its zone learned from the endpoints there, as the EndpointSlice
 * controller copies the Node's zone label into them):
 * <ul>
 *   <li>a headless service in east: the endpoints whose topology hint names the node's zone come first;</li>
 *   <li>its clusterset name, which west also exports: east's endpoints before west's;</li>
 *   <li>a clusterset name of three ClusterIPs: east's first, the other two still spread between them.</li>
 * </ul>
 */
class LocalityOrderTest {
    private static final String TOKEN = "locality-token";
    private static final int QUERIES = 30;

    @Test
    void theNodesZoneThenItsClusterComeFirstAndTheSpreadStaysWithinEach() throws Exception {
        Path dir = Files.createTempDirectory("meshdns-locality");
        Path clusters = dir.resolve("manifests");
        for (String c : List.of("east", "west", "north")) {
            Files.createDirectories(clusters.resolve(c));
            Files.writeString(clusters.resolve(c).resolve("ns.yaml"), Manifests.namespace("data"));
        }
        String[][] pay = {{"east", "10.96.0.20"}, {"west", "10.112.0.20"}, {"north", "10.128.0.20"}};
        for (String[] c : pay) {
            Files.writeString(clusters.resolve(c[0]).resolve("pay.yaml"), Manifests.service("data", "pay", c[1], "http", 80));
        }
        Files.writeString(clusters.resolve("east").resolve("db.yaml"), headless("""
                endpoints:
                - {addresses: ["10.0.1.1"], conditions: {ready: true}, nodeName: node-1, zone: zone-a, hints: {forZones: [{name: zone-a}]}}
                - {addresses: ["10.0.1.2"], conditions: {ready: true}, nodeName: node-2, zone: zone-b, hints: {forZones: [{name: zone-b}]}}
                - {addresses: ["10.0.1.3"], conditions: {ready: true}, nodeName: node-3, zone: zone-b, hints: {forZones: [{name: zone-a}]}}
                - {addresses: ["10.0.1.4"], conditions: {ready: true}, nodeName: node-4, zone: zone-c, hints: {forZones: [{name: zone-c}]}}
                """));
        Files.writeString(clusters.resolve("west").resolve("db.yaml"), headless("""
                endpoints:
                - {addresses: ["10.1.1.1"], conditions: {ready: true}, nodeName: w-1, zone: zone-a}
                """));
        try (DiscoveryAndNode mesh = new DiscoveryAndNode(dir, clusters, TOKEN)) {
            mesh.node().property("meshdns.dns.locality.node-name", "node-1");
            mesh.start();
            Dns dns = mesh.dns();
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                    .until(() -> dns.a("db.data.svc.clusterset.local").size() == 5 && dns.a("pay.data.svc.clusterset.local").size() == 3);

            Set<String> firstTwo = new HashSet<>();
            Set<String> lastTwo = new HashSet<>();
            for (int i = 0; i < QUERIES; i++) {
                List<String> a = dns.aInOrder("db.data.svc.cluster.local");
                assertEquals(4, a.size(), a.toString());
                firstTwo.add(String.join(",", a.subList(0, 2).stream().sorted().toList()));
                lastTwo.add(String.join(",", a.subList(2, 4).stream().sorted().toList()));
            }
            assertEquals(Set.of("10.0.1.1,10.0.1.3"), firstTwo, "the endpoints hinted for zone-a (node-1's zone) come first");
            assertEquals(Set.of("10.0.1.2,10.0.1.4"), lastTwo);

            for (int i = 0; i < QUERIES; i++) {
                List<String> a = dns.aInOrder("db.data.svc.clusterset.local");
                assertEquals("10.1.1.1", a.get(4), "west's endpoint comes after every one of east's: " + a);
                assertEquals(Set.of("10.0.1.1", "10.0.1.3"), Set.copyOf(a.subList(0, 2)), "the node's zone first: " + a);
            }

            Set<String> second = new HashSet<>();
            for (int i = 0; i < QUERIES; i++) {
                List<String> a = dns.aInOrder("pay.data.svc.clusterset.local");
                assertEquals("10.96.0.20", a.get(0), "the local cluster's ClusterIP first: " + a);
                second.add(a.get(1));
            }
            assertEquals(Set.of("10.112.0.20", "10.128.0.20"), second, "west and north are still shuffled behind it");

            String explain = mesh.explain("db.data.svc.cluster.local", "A");
            assertTrue(explain.contains("zone zone-a (learned from the endpoints on this node) first"), explain);
        }
    }

    private static String headless(String endpoints) {
        return Manifests.join(Manifests.service("data", "db", "None", "pg", 5432),
                Manifests.endpointSlice("data", "db", "db-1", "pg", 5432, endpoints));
    }
}
