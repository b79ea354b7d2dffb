package io.meshdns.discovery.it;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.CatalogSnapshot;
import io.meshdns.model.ClusterStatus;
import io.meshdns.model.Kind;
import io.meshdns.model.ObjectRef;
import io.meshdns.model.WatchEvent;
import io.meshdns.model.WireFormat;
import io.meshdns.testsupport.ServiceEntryCrd;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two clusters on two fabric8 CRUD test servers: "east" is the local cluster (the Quarkus client),
 * "west" a remote one announced by a kubeconfig file. Every check goes through the real HTTP API.
 * One class, because the checks run in order against one application and the two clusters it watches,
 * started once: a second class would start all three again.
 */
@QuarkusTest
@WithKubernetesTestServer(crud = true, setup = DiscoveryClustersTest.EastSetup.class)
@QuarkusTestResource(value = WestCluster.class, restrictToAnnotatedClass = true)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DiscoveryClustersTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    public static class EastSetup implements Consumer<KubernetesServer> {
        @Override
        public void accept(KubernetesServer server) {
            ServiceEntryCrd.register(server.getClient());
        }
    }

    @KubernetesTestServer
    KubernetesServer east;

    @TestHTTPResource("/")
    URL base;

    @jakarta.inject.Inject
    io.vertx.core.Vertx vertx;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    // ---- scenarios -------------------------------------------------------------------------

    @Test
    @Order(1)
    void servesServicesOfBothClustersWithTheirClusterNames() throws Exception {
        KubernetesClient e = east.getClient();
        e.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("shop").endMetadata().build()).create();
        e.services().inNamespace("shop").resource(service("web", "10.96.0.10")).create();
        west().services().inNamespace("shop").resource(service("reviews", "10.97.0.20")).create();

        await().atMost(WAIT).untilAsserted(() -> {
            CatalogSnapshot s = snapshot();
            assertEquals(List.of("10.96.0.10"), svc(s, "east", "shop", "web").clusterIps());
            assertEquals(List.of("10.97.0.20"), svc(s, "west", "shop", "reviews").clusterIps());
            assertTrue(find(s, new ObjectRef("east", Kind.NAMESPACE, "", "shop")).isPresent());
        });
        CatalogSnapshot s = snapshot();
        ClusterStatus eastStatus = cluster(s, "east");
        ClusterStatus westStatus = cluster(s, "west");
        assertTrue(eastStatus.local());
        assertFalse(westStatus.local());
        assertFalse(westStatus.stale());
    }

    @Test
    @Order(2)
    void endpointSlicesFollowCreateUpdateAndDelete() throws Exception {
        KubernetesClient e = east.getClient();
        e.services().inNamespace("shop").resource(service("db", "None")).create();
        e.discovery().v1().endpointSlices().inNamespace("shop").resource(slice("db-1", "db", "10.244.1.5", "10.244.1.6")).create();
        ObjectRef ref = new ObjectRef("east", Kind.ENDPOINT_SLICE, "shop", "db-1");
        await().atMost(WAIT).untilAsserted(() -> {
            CatalogEntry.EndpointSlice es = (CatalogEntry.EndpointSlice) find(snapshot(), ref).orElseThrow(AssertionError::new);
            assertEquals("db", es.serviceName());
            assertEquals(2, es.endpoints().size());
            assertTrue(svc(snapshot(), "east", "shop", "db").headless());
        });

        e.discovery().v1().endpointSlices().inNamespace("shop").resource(slice("db-1", "db", "10.244.1.7")).update();
        await().atMost(WAIT).untilAsserted(() -> {
            CatalogEntry.EndpointSlice es = (CatalogEntry.EndpointSlice) find(snapshot(), ref).orElseThrow(AssertionError::new);
            assertEquals(List.of("10.244.1.7"), es.endpoints().get(0).addresses());
            assertEquals(1, es.endpoints().size());
        });

        e.discovery().v1().endpointSlices().inNamespace("shop").withName("db-1").delete();
        await().atMost(WAIT).untilAsserted(() -> assertTrue(find(snapshot(), ref).isEmpty()));
    }

    @Test
    @Order(3)
    void serviceEntriesAreServedAndAMalformedOneIsLoggedAndSkipped() throws Exception {
        KubernetesClient e = east.getClient();
        var ses = e.genericKubernetesResources("networking.istio.io/v1", "ServiceEntry").inNamespace("shop");
        ses.resource(serviceEntry("payments", Map.of("hosts", List.of("api.payments.example"), "addresses", List.of("192.0.2.10"),
                "resolution", "STATIC"))).create();
        ses.resource(serviceEntry("broken", Map.of("hosts", "not-a-list.example"))).create();
        ObjectRef good = new ObjectRef("east", Kind.SERVICE_ENTRY, "shop", "payments");
        ObjectRef bad = new ObjectRef("east", Kind.SERVICE_ENTRY, "shop", "broken");
        await().atMost(WAIT).untilAsserted(() -> {
            CatalogEntry.ServiceEntry se = (CatalogEntry.ServiceEntry) find(snapshot(), good).orElseThrow(AssertionError::new);
            assertEquals(List.of("api.payments.example"), se.hosts());
            assertEquals(List.of("192.0.2.10"), se.addresses());
        });
        // The malformed one is recorded as a Warning Event on the object, and never served.
        await().atMost(WAIT).untilAsserted(() -> assertTrue(e.v1().events().inNamespace("shop").list().getItems().stream()
                .anyMatch(ev -> "MeshdnsRejected".equals(ev.getReason()) && "broken".equals(ev.getInvolvedObject().getName())
                        && ev.getMessage().contains("spec.hosts is not a list"))));
        assertTrue(find(snapshot(), bad).isEmpty());

        // A good object turning bad keeps its last good state: a bad object never deletes anything.
        ses.resource(serviceEntry("payments", Map.of("hosts", List.of("api.payments.example"), "addresses", List.of("300.0.0.1")))).update();
        e.services().inNamespace("shop").resource(service("barrier", "10.96.0.99")).create();
        await().atMost(WAIT).untilAsserted(() -> assertTrue(find(snapshot(), new ObjectRef("east", Kind.SERVICE, "shop", "barrier")).isPresent()));
        assertEquals(List.of("192.0.2.10"), ((CatalogEntry.ServiceEntry) find(snapshot(), good).orElseThrow(AssertionError::new)).addresses());

        ses.withName("payments").delete();
        await().atMost(WAIT).untilAsserted(() -> assertTrue(find(snapshot(), good).isEmpty()));
    }

    @Test
    @Order(4)
    void watchStreamsOrderedDeltasSnapshotsForUnknownVersionsAndHeartbeats() throws Exception {
        long v = snapshot().version();
        List<String> bus = new java.util.concurrent.CopyOnWriteArrayList<>();
        var consumer = vertx.eventBus().<String>consumer("meshdns.catalog", m -> bus.add(m.body()));
        java.util.concurrent.CompletableFuture<Void> registered = new java.util.concurrent.CompletableFuture<>();
        consumer.completionHandler(ar -> registered.complete(null));
        registered.get(10, TimeUnit.SECONDS);
        try (NdjsonStream stream = watch("since=" + v)) {
            ObjectRef cart = new ObjectRef("west", Kind.SERVICE, "shop", "cart");
            west().services().inNamespace("shop").resource(service("cart", "10.97.0.30")).create();
            WatchEvent first = stream.nextNonHeartbeat();
            assertEquals(WatchEvent.DELTA, first.type());
            assertEquals(v, first.delta().fromVersion(), "the first delta continues from the client's version");
            WatchEvent created = first.delta().upserts().stream().anyMatch(x -> x.ref().equals(cart)) ? first
                    : stream.next(e -> e.delta() != null && e.delta().upserts().stream().anyMatch(x -> x.ref().equals(cart)));
            // The in-process feed (all-in-one mode) carries the same delta line.
            await().atMost(WAIT).untilAsserted(() -> assertTrue(bus.stream()
                    .map(l -> WireFormat.decode(l, WatchEvent.class)).anyMatch(e -> e.version() == created.version()
                            && e.delta().equals(created.delta()))));
            consumer.unregister();
            String snapLine = vertx.eventBus().<String>request("meshdns.catalog.snapshot", "")
                    .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS).body();
            assertEquals(WatchEvent.SNAPSHOT, WireFormat.decode(snapLine, WatchEvent.class).type());

            west().services().inNamespace("shop").withName("cart").delete();
            WatchEvent deleted = stream.next(e -> e.delta() != null && e.delta().deletes().contains(cart));
            assertTrue(deleted.version() > created.version());
            assertEquals(List.of(), stream.gaps(), "deltas chain without gaps");

            WatchEvent hb = stream.next(e -> e.type().equals(WatchEvent.HEARTBEAT));
            assertTrue(hb.version() >= deleted.version(), "a heartbeat carries the last version the stream delivered");
        }
        // A version this process never had (or one too old for the history) gets the full snapshot first.
        try (NdjsonStream stream = watch("since=1")) {
            WatchEvent first = stream.nextNonHeartbeat();
            assertEquals(WatchEvent.SNAPSHOT, first.type());
            CatalogSnapshot now = snapshot();
            assertTrue(first.snapshot().version() <= now.version());
            if (now.version() == first.snapshot().version()) assertEquals(now.entries(), first.snapshot().entries());
        }
        // A client that already has the current version catches up with deltas only.
        long before = snapshot().version();
        east.getClient().services().inNamespace("shop").resource(service("late", "10.96.0.40")).create();
        await().atMost(WAIT).until(() -> snapshot().version() > before);
        try (NdjsonStream stream = watch("since=" + before)) {
            WatchEvent first = stream.nextNonHeartbeat();
            assertEquals(WatchEvent.DELTA, first.type());
            assertEquals(before, first.delta().fromVersion());
        }
    }

    @Test
    @Order(5)
    void authEtagGzipAndStatus() throws Exception {
        HttpResponse<String> none = http.send(get("/v1/snapshot", null).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(401, none.statusCode());
        HttpResponse<String> badWatch = http.send(get("/v1/watch?since=1", "wrong-token").build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(401, badWatch.statusCode());
        assertFalse(badWatch.body().contains("\"type\""), "nothing is streamed to an unauthenticated client");
        assertNotEquals("application/x-ndjson", badWatch.headers().firstValue("content-type").orElse(""));
        assertEquals(401, http.send(get("/v1/status", "test-token-but-longer").build(), HttpResponse.BodyHandlers.ofString()).statusCode());

        HttpResponse<byte[]> plain = http.send(get("/v1/snapshot", WestCluster.TOKEN).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, plain.statusCode());
        String etag = plain.headers().firstValue("etag").orElseThrow();
        CatalogSnapshot decoded = WireFormat.decode(plain.body(), CatalogSnapshot.class);
        assertEquals("\"" + decoded.version() + "\"", etag);

        HttpResponse<byte[]> notModified = http.send(get("/v1/snapshot", WestCluster.TOKEN).header("If-None-Match", etag).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(304, notModified.statusCode());
        assertEquals(0, notModified.body().length);

        HttpResponse<byte[]> gz = http.send(get("/v1/snapshot", WestCluster.TOKEN).header("Accept-Encoding", "gzip").build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertEquals("gzip", gz.headers().firstValue("content-encoding").orElse(""));
        byte[] unzipped = new GZIPInputStream(new ByteArrayInputStream(gz.body())).readAllBytes();
        if (gz.headers().firstValue("etag").orElseThrow().equals(etag)) {
            assertEquals(new String(plain.body()), new String(unzipped));
        }
        assertTrue(gz.body().length < plain.body().length);

        HttpResponse<String> status = http.send(get("/v1/status", WestCluster.TOKEN).build(), HttpResponse.BodyHandlers.ofString());
        @SuppressWarnings("unchecked")
        Map<String, Object> body = WireFormat.mapper().readValue(status.body(), Map.class);
        assertEquals(Boolean.TRUE, body.get("ready"));
        assertEquals(2, ((List<?>) body.get("clusters")).size());
        // The one replica took the VIP allocator's Lease on the CRUD server at start.
        @SuppressWarnings("unchecked")
        Map<String, Object> vips = (Map<String, Object>) body.get("vipAllocator");
        assertEquals(Boolean.TRUE, vips.get("leader"), status.body());
        assertEquals(vips.get("leaseIdentity"), east.getClient().leases().inNamespace("test")
                .withName("discovery-service-vip-allocator").get().getSpec().getHolderIdentity());
        assertTrue(metrics().contains("meshdns_discovery_vip_leader 1.0"), "meshdns_discovery_vip_leader");
    }

    @Test
    @Order(6)
    void aRemoteClusterGoesAwayAndComesBackWithItsKubeconfigFile() throws Exception {
        ObjectRef reviews = new ObjectRef("west", Kind.SERVICE, "shop", "reviews");
        Files.delete(WestCluster.kubeconfigDir.resolve("west.yaml"));
        await().atMost(WAIT).untilAsserted(() -> {
            CatalogSnapshot s = snapshot();
            assertTrue(find(s, reviews).isEmpty());
            assertTrue(s.clusters().stream().noneMatch(c -> c.name().equals("west")));
        });
        assertTrue(find(snapshot(), new ObjectRef("east", Kind.SERVICE, "shop", "web")).isPresent(), "the other cluster is untouched");

        WestCluster.writeKubeconfig();
        await().atMost(WAIT).untilAsserted(() -> {
            CatalogSnapshot s = snapshot();
            assertTrue(find(s, reviews).isPresent());
            assertFalse(cluster(s, "west").stale());
        });
    }

    @Test
    @Order(7)
    void istioRemoteSecretsAddAndRemoveClustersAtRunTime() {
        // Istio's remote-secret convention: each data key is a cluster name, each value a kubeconfig.
        String kubeconfig = WestCluster.kubeconfigText();
        east.getClient().secrets().inNamespace("shop").resource(new io.fabric8.kubernetes.api.model.SecretBuilder()
                .withNewMetadata().withName("istio-remote-secret-north").withNamespace("shop")
                .addToLabels("istio/multiCluster", "true").endMetadata()
                .addToData("north", java.util.Base64.getEncoder().encodeToString(kubeconfig.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .build()).create();
        ObjectRef northReviews = new ObjectRef("north", Kind.SERVICE, "shop", "reviews");
        await().atMost(WAIT).untilAsserted(() -> {
            CatalogSnapshot s = snapshot();
            assertEquals(List.of("10.97.0.20"), svc(s, "north", "shop", "reviews").clusterIps());
            assertFalse(cluster(s, "north").local());
        });
        east.getClient().secrets().inNamespace("shop").withName("istio-remote-secret-north").delete();
        await().atMost(WAIT).untilAsserted(() -> {
            CatalogSnapshot s = snapshot();
            assertTrue(find(s, northReviews).isEmpty());
            assertTrue(s.clusters().stream().noneMatch(c -> c.name().equals("north")));
        });
    }

    @Test
    @Order(8)
    void anUnreachableClusterGoesStaleKeepsItsStateAndEndsEqualToTheTruthWhenBack() throws Exception {
        ObjectRef reviews = new ObjectRef("west", Kind.SERVICE, "shop", "reviews");
        ObjectRef goneWhileAway = new ObjectRef("west", Kind.SERVICE, "shop", "gone-while-away");
        west().services().inNamespace("shop").resource(service("gone-while-away", "10.97.0.77")).create();
        await().atMost(WAIT).untilAsserted(() -> assertTrue(find(snapshot(), goneWhileAway).isPresent()));
        await().atMost(WAIT).untilAsserted(() -> assertEquals(Boolean.TRUE, statusOf("west").get("watching")));
        int port = WestCluster.port;
        WestCluster.server.after();

        // /v1/status shows the cut live (within a tick), before stale-after has passed.
        await().atMost(WAIT).untilAsserted(() -> {
            Map<String, Object> west = statusOf("west");
            assertEquals(Boolean.FALSE, west.get("watching"), west.toString());
            assertEquals("down", ((Map<?, ?>) west.get("watches")).get("service"), west.toString());
            assertTrue(((Number) west.get("lastHealthyEpochMillis")).longValue() > 0, west.toString());
        });
        assertEquals(Boolean.TRUE, statusOf("east").get("watching"), "the other cluster is unaffected");
        await().atMost(WAIT).untilAsserted(() -> assertTrue(cluster(snapshot(), "west").stale()));
        assertTrue(find(snapshot(), reviews).isPresent(), "a stale cluster keeps its last known state");
        assertTrue(metrics().contains("meshdns_discovery_cluster_stale{cluster=\"west\"} 1.0"));
        // The other cluster is never blocked by the dead one.
        east.getClient().services().inNamespace("shop").resource(service("while-west-is-down", "10.96.0.50")).create();
        await().atMost(WAIT).untilAsserted(() ->
                assertTrue(find(snapshot(), new ObjectRef("east", Kind.SERVICE, "shop", "while-west-is-down")).isPresent()));

        // West comes back with different contents (what it would look like after changes we missed).
        WestCluster.startServer(port);
        west().services().inNamespace("shop").resource(service("reviews", "10.97.0.99")).create();
        west().services().inNamespace("shop").resource(service("ratings", "10.97.0.98")).create();
        await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
            CatalogSnapshot s = snapshot();
            assertFalse(cluster(s, "west").stale());
            assertEquals(List.of("10.97.0.99"), svc(s, "west", "shop", "reviews").clusterIps());
            assertTrue(find(s, new ObjectRef("west", Kind.SERVICE, "shop", "ratings")).isPresent());
            assertTrue(find(s, goneWhileAway).isEmpty(), "a delete missed while away is gone after the relist");
        });
        assertTrue(metrics().contains("meshdns_discovery_cluster_stale{cluster=\"west\"} 0.0"));
        await().atMost(WAIT).untilAsserted(() -> assertEquals(Boolean.TRUE, statusOf("west").get("watching")));
        assertTrue(metrics().contains("meshdns_discovery_cluster_watching{cluster=\"west\"} 1.0"));
    }

    // ---- helpers ---------------------------------------------------------------------------

    private static KubernetesClient west() {
        return WestCluster.server.getClient();
    }

    private HttpRequest.Builder get(String path, String token) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base.toString().replaceAll("/$", "") + path)).timeout(Duration.ofSeconds(20));
        if (token != null) b.header("Authorization", "Bearer " + token);
        return b;
    }

    private CatalogSnapshot snapshot() throws IOException, InterruptedException {
        HttpResponse<byte[]> r = http.send(get("/v1/snapshot", WestCluster.TOKEN).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, r.statusCode(), () -> new String(r.body()));
        return WireFormat.decode(r.body(), CatalogSnapshot.class);
    }

    /** One cluster's object in /v1/status. */
    @SuppressWarnings("unchecked")
    private Map<String, Object> statusOf(String cluster) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(get("/v1/status", WestCluster.TOKEN).build(), HttpResponse.BodyHandlers.ofString());
        Map<String, Object> body = WireFormat.mapper().readValue(r.body(), Map.class);
        return ((List<Map<String, Object>>) body.get("clusters")).stream().filter(c -> cluster.equals(c.get("name"))).findFirst()
                .orElseThrow(() -> new AssertionError(cluster + " not in " + r.body()));
    }

    private String metrics() throws IOException, InterruptedException {
        return http.send(get("/q/metrics", null).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    private NdjsonStream watch(String query) throws Exception {
        HttpResponse<Stream<String>> r = http.send(get("/v1/watch?" + query, WestCluster.TOKEN).timeout(Duration.ofMinutes(5)).build(),
                HttpResponse.BodyHandlers.ofLines());
        assertEquals(200, r.statusCode());
        assertEquals("application/x-ndjson", r.headers().firstValue("content-type").orElse(""));
        return new NdjsonStream(r.body());
    }

    /** Reads the NDJSON lines of a watch on a background thread, as a dns-service client would. */
    static final class NdjsonStream implements AutoCloseable {
        private final BlockingQueue<WatchEvent> events = new LinkedBlockingQueue<>();
        private final List<String> gaps = new java.util.concurrent.CopyOnWriteArrayList<>();
        private long lastVersion = -1;
        private final Stream<String> lines;
        private final Thread reader;

        NdjsonStream(Stream<String> lines) {
            this.lines = lines;
            this.reader = new Thread(() -> {
                try {
                    lines.forEach(l -> {
                        if (l.isBlank()) return;
                        WatchEvent e = WireFormat.decode(l, WatchEvent.class);
                        if (e.delta() != null) {
                            if (lastVersion >= 0 && e.delta().fromVersion() != lastVersion) {
                                gaps.add(lastVersion + " -> " + e.delta().fromVersion());
                            }
                            lastVersion = e.version();
                        } else if (e.snapshot() != null) {
                            lastVersion = e.version();
                        }
                        events.add(e);
                    });
                } catch (RuntimeException ignored) {
                    // closed by the test
                }
            }, "ndjson-reader");
            reader.setDaemon(true);
            reader.start();
        }

        WatchEvent next(java.util.function.Predicate<WatchEvent> wanted) throws InterruptedException {
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < deadline) {
                WatchEvent e = events.poll(1, TimeUnit.SECONDS);
                if (e != null && wanted.test(e)) return e;
            }
            throw new AssertionError("no matching watch event within " + WAIT);
        }

        List<String> gaps() {
            return gaps;
        }

        WatchEvent nextNonHeartbeat() throws InterruptedException {
            return next(e -> !e.type().equals(WatchEvent.HEARTBEAT));
        }

        @Override
        public void close() {
            lines.close();
            reader.interrupt();
        }
    }

    private static Service service(String name, String clusterIp) {
        return new ServiceBuilder().withNewMetadata().withName(name).withNamespace("shop").endMetadata()
                .withNewSpec().withClusterIP(clusterIp).addNewPort().withName("http").withPort(80).withProtocol("TCP").endPort().endSpec()
                .build();
    }

    private static EndpointSlice slice(String name, String service, String... ips) {
        EndpointSliceBuilder b = new EndpointSliceBuilder().withNewMetadata().withName(name).withNamespace("shop")
                .addToLabels("kubernetes.io/service-name", service).endMetadata().withAddressType("IPv4");
        for (int i = 0; i < ips.length; i++) {
            b.addNewEndpoint().withAddresses(ips[i]).withHostname(service + "-" + i).withNewConditions().withReady(true).endConditions().endEndpoint();
        }
        return b.addNewPort().withName("pg").withPort(5432).withProtocol("TCP").endPort().build();
    }

    private static GenericKubernetesResource serviceEntry(String name, Map<String, Object> spec) {
        return new GenericKubernetesResourceBuilder().withApiVersion("networking.istio.io/v1").withKind("ServiceEntry")
                .withNewMetadata().withName(name).withNamespace("shop").endMetadata()
                .addToAdditionalProperties("spec", spec).build();
    }

    private static Optional<CatalogEntry> find(CatalogSnapshot s, ObjectRef ref) {
        return s.entries().stream().filter(e -> e.ref().equals(ref)).findFirst();
    }

    private static CatalogEntry.Service svc(CatalogSnapshot s, String cluster, String ns, String name) {
        Optional<CatalogEntry> e = find(s, new ObjectRef(cluster, Kind.SERVICE, ns, name));
        assertTrue(e.isPresent(), cluster + "/" + ns + "/" + name + " not in snapshot " + s.version());
        return (CatalogEntry.Service) e.get();
    }

    private static ClusterStatus cluster(CatalogSnapshot s, String name) {
        return s.clusters().stream().filter(c -> c.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("cluster " + name + " not in " + s.clusters()));
    }

}
