package io.meshdns.edge;

import io.meshdns.testsupport.Manifests;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

import java.math.BigDecimal;
import java.net.InetAddress;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The all-in-one app as an edge node runs it: one process, discovery reading a manifest directory of two
 * clusters and dns-service following it over the event bus. Only the edge defaults choose the wiring (the test
 * sets neither {@code meshdns.dns.discovery-url} nor {@code meshdns.discovery.enabled-local-cluster}).
 * The scenarios share the process and run in order (the manifest edits build on each other).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EdgeIT {
    private static final Duration START = Duration.ofSeconds(90);
    private static final Duration CHANGE = Duration.ofSeconds(20);
    private static final String TOKEN = "edge-test-token";

    @TempDir
    static Path tmp;
    static Path manifests;
    static EdgeProcess edge;
    static SimpleResolver dns;

    @BeforeAll
    static void start() throws Exception {
        manifests = tmp.resolve("clusters");
        write("east/shop.yaml", Manifests.join(Manifests.namespace("shop"),
                Manifests.service("shop", "web", "10.96.0.10", "http", 80),
                Manifests.service("shop", "db", "None", "postgres", 5432),
                Manifests.endpointSlice("shop", "db", "db-abcde", "postgres", 5432, """
                        endpoints:
                        - addresses: [10.244.1.5]
                          conditions: {ready: true}
                        - addresses: [10.244.1.6]
                          conditions: {ready: true}
                        """)));
        write("east/serviceentry.yaml", """
                apiVersion: networking.istio.io/v1
                kind: ServiceEntry
                metadata: {name: payments-api, namespace: shop}
                spec:
                  hosts: [api.payments.example]
                  addresses: [192.0.2.10]
                  location: MESH_EXTERNAL
                  resolution: STATIC
                  endpoints: [{address: 198.51.100.7}]
                  ports: [{number: 443, name: https, protocol: TLS}]
                """);
        write("west/shop.yaml", reviews("10.97.0.20"));
        write("west/legacy.yaml", """
                apiVersion: networking.istio.io/v1beta1
                kind: ServiceEntry
                metadata: {name: legacy, namespace: shop}
                spec:
                  hosts: [legacy.service.entry]
                  location: MESH_INTERNAL
                  resolution: DNS
                  endpoints: [{address: legacy-backend.shop.svc.cluster.local}]
                  ports: [{number: 8080, name: http, protocol: HTTP}]
                """);
        edge = EdgeProcess.start(List.of(
                "meshdns.discovery.manifest-dirs=" + manifests,
                "meshdns.discovery.manifest-poll-interval=200ms",
                "meshdns.discovery.shared-token=" + TOKEN,
                "meshdns.discovery.vip-file=" + tmp.resolve("vips.txt"),
                "meshdns.dns.cluster-name=east",
                // never forward to the host's resolver: a loopback port nobody serves
                "meshdns.dns.upstreams=127.0.0.1:9"));
        dns = new SimpleResolver(InetAddress.getLoopbackAddress());
        dns.setPort(edge.dnsPort(START));
        dns.setTimeout(Duration.ofSeconds(1));
        Awaitility.await("edge ready:\n" + edge.output()).atMost(START).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                .until(() -> edge.get("/q/health/ready", null).statusCode() == 200);
    }

    @AfterAll
    static void stop() {
        if (edge != null) edge.close();
    }

    @Test
    @Order(1)
    void answersForServicesOfBothClusters() {
        assertEquals(List.of("10.96.0.10"), a("web.shop.svc.cluster.local"), "in east, the node's cluster");
        assertEquals(List.of("10.97.0.20"), a("reviews.shop.svc.cluster.local"), "only in west");
        assertEquals(List.of("10.244.1.5", "10.244.1.6"), a("db.shop.svc.cluster.local"), "headless in east: its endpoints");
        assertEquals(List.of("192.0.2.10"), a("api.payments.example"), "ServiceEntry with addresses");
        List<String> vip = a("legacy.service.entry");
        assertEquals(1, vip.size(), "ServiceEntry without addresses: one allocated VIP, got " + vip);
        assertTrue(vip.get(0).startsWith("240.240."), "from 240.240.0.0/16: " + vip);
        assertTrue(edge.output().contains("after update from discovery:eventbus"), "fed over the event bus:\n" + edge.output());
    }

    @Test
    @Order(2)
    void followsManifestEditsAdditionsAndDeletes() throws Exception {
        write("west/shop.yaml", reviews("10.97.0.21"));
        awaitAnswer("reviews.shop.svc.cluster.local", List.of("10.97.0.21"));

        write("east/cart.yaml", Manifests.service("shop", "cart", "10.96.0.30", "http", 80));
        awaitAnswer("cart.shop.svc.cluster.local", List.of("10.96.0.30"));

        Files.delete(manifests.resolve("east/cart.yaml"));
        awaitAnswer("cart.shop.svc.cluster.local", List.of("[NXDOMAIN]"));
        assertEquals(List.of("10.96.0.10"), a("web.shop.svc.cluster.local"), "the rest is untouched");
    }

    /** Discovery's HTTP API stays up in the same process, so other nodes can follow the edge. */
    @Test
    @Order(3)
    void discoveryApiServesOnTheSameProcessWithTheToken() throws Exception {
        assertEquals(401, edge.get("/v1/snapshot", null).statusCode());
        assertEquals(401, edge.get("/v1/snapshot", "wrong-token").statusCode());

        HttpResponse<String> snapshot = edge.get("/v1/snapshot", TOKEN);
        assertEquals(200, snapshot.statusCode(), snapshot.body());
        String body = snapshot.body();
        assertTrue(body.contains("\"name\":\"reviews\"") && body.contains("10.97.0.21"), body);
        assertTrue(body.contains("\"cluster\":\"east\"") && body.contains("\"cluster\":\"west\""), body);
        assertFalse(body.contains("\"name\":\"cart\""), "deleted file, deleted entry: " + body);
        long version = Long.parseLong(snapshot.headers().firstValue("ETag").orElseThrow().replace("\"", ""));

        // dns-service in this process applied exactly the version the API serves.
        Awaitility.await("dns-service at version " + version).atMost(CHANGE).pollInterval(Duration.ofMillis(100))
                .until(() -> metric(edge.get("/q/metrics", null).body(), "meshdns_discovery_client_version") == version);

        String watch = edge.firstLine("/v1/watch", TOKEN);
        assertTrue(watch.startsWith("200 {\"type\":\"snapshot\",\"version\":" + version), watch);

        String ready = edge.get("/q/health/ready", null).body();
        for (String check : List.of("\"dns\"", "\"discovery-catalog\"", "\"discovery-feed\"")) {
            assertTrue(ready.contains(check), "readiness of both halves, " + check + ": " + ready);
        }
    }

    private static String reviews(String clusterIp) {
        return Manifests.join(Manifests.namespace("shop"), Manifests.service("shop", "reviews", clusterIp, "http", 9080));
    }

    private static void write(String file, String yaml) throws Exception {
        Path p = manifests.resolve(file);
        Files.createDirectories(p.getParent());
        // Write beside it and rename, so a poll never reads half a file.
        Path part = p.resolveSibling("." + p.getFileName() + ".part");
        Files.writeString(part, yaml);
        Files.move(part, p, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    private static void awaitAnswer(String name, List<String> expected) {
        Awaitility.await(name + " -> " + expected).atMost(CHANGE).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                .until(() -> a(name).equals(expected));
    }

    /** The sorted A addresses of the answer, or the rcode in brackets when it is not NOERROR. */
    private static List<String> a(String name) {
        try {
            Message m = dns.send(Message.newQuery(Record.newRecord(Name.fromString(name + "."), Type.A, DClass.IN)));
            if (m.getRcode() != Rcode.NOERROR) return List.of("[" + Rcode.string(m.getRcode()) + "]");
            TreeSet<String> out = new TreeSet<>();
            for (Record r : m.getSection(Section.ANSWER)) {
                if (r.getType() == Type.A) out.add(r.rdataToString());
            }
            return List.copyOf(out);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static long metric(String prometheus, String name) {
        Matcher m = Pattern.compile("(?m)^" + name + " (\\S+)$").matcher(prometheus);
        return m.find() ? new BigDecimal(m.group(1)).longValueExact() : -1;
    }
}
