package io.meshdns.it.mesh;

import io.meshdns.it.testing.DiscoveryAndNode;
import io.meshdns.it.testing.Dns;
import io.meshdns.testsupport.Manifests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ServiceEntry hosts as a lazyload user meets them, over the packaged discovery-service (manifests) and
 * dns-service: a wildcard host with no address answers every name below it, at any depth, with the one VIP
 * discovery allocated for it (before, discovery allocated none and the names were forwarded: SERVFAIL or a
 * timeout); one host named by two ServiceEntries answers the older one's address (before, the one whose namespace
 * sorted first), and {@code explain} names which answers and which is outranked.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ServiceEntryHostsTest {
    private static final String TOKEN = "se-hosts-token";
    private Path dir;
    private DiscoveryAndNode mesh;
    private Dns dns;

    @BeforeAll
    void start() throws Exception {
        dir = Files.createTempDirectory("meshdns-se-hosts");
        Path east = Files.createDirectories(dir.resolve("manifests/east"));
        Files.writeString(east.resolve("entries.yaml"), Manifests.join(Manifests.namespace("shop"), """
                apiVersion: networking.istio.io/v1
                kind: ServiceEntry
                metadata: {name: wild, namespace: shop}
                spec:
                  hosts: ["*.wild.example"]
                  location: MESH_EXTERNAL
                  resolution: DNS
                  ports: [{number: 443, name: https, protocol: TLS}]
                """,
                dupExample("default", "alpha", "2025-06-01T00:00:00Z", "192.0.2.62"),
                dupExample("shop", "zeta", "2024-01-01T00:00:00Z", "192.0.2.61")));
        mesh = new DiscoveryAndNode(dir, east.getParent(), TOKEN);
        mesh.start();
        dns = mesh.dns();
    }

    @AfterAll
    void stop() {
        if (mesh != null) mesh.close();
    }

    @Test
    void aWildcardHostAnswersEveryNameBelowItWithOneVip() {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                .until(() -> dns.a("api.wild.example").size() == 1);
        List<String> vip = dns.a("api.wild.example");
        assertTrue(vip.get(0).startsWith("240.240."), vip.toString());
        assertEquals(vip, dns.a("deep.er.wild.example"), "any depth");
        assertEquals(vip, dns.a("API.Wild.Example"), "case-insensitively");
    }

    @Test
    void theOlderOfTwoServiceEntriesForOneHostAnswersAndExplainSaysWhy() throws Exception {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                .until(() -> !dns.a("dup.example").isEmpty());
        assertEquals(List.of("192.0.2.61"), dns.a("dup.example"), "zeta (2024) is older than alpha (2025)");
        HttpResponse<String> explain = mesh.node().get("/v1/explain?name=dup.example&type=A", null, Duration.ofSeconds(10));
        assertEquals(200, explain.statusCode(), explain.body());
        String body = explain.body();
        assertTrue(body.matches("(?s).*\\{[^}]*\"name\":\"zeta\",\"role\":\"answers\"[^}]*}.*"), body);
        assertTrue(body.matches("(?s).*\\{[^}]*\"name\":\"alpha\",\"role\":\"outranked\"[^}]*}.*"), body);
        assertTrue(body.contains("2 ServiceEntries name this host"), body);
    }

    /** A static ServiceEntry for dup.example; two of them compete for the host, the older by creation winning. */
    private static String dupExample(String namespace, String name, String created, String address) {
        return """
                apiVersion: networking.istio.io/v1
                kind: ServiceEntry
                metadata: {name: %s, namespace: %s, creationTimestamp: "%s"}
                spec:
                  hosts: [dup.example]
                  addresses: [%s]
                  resolution: STATIC
                  endpoints: [{address: %s}]
                  ports: [{number: 80, name: http, protocol: HTTP}]
                """.formatted(name, namespace, created, address, address);
    }
}
