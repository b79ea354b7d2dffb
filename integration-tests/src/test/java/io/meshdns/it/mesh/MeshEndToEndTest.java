package io.meshdns.it.mesh;

import io.meshdns.testsupport.dns.LoopbackPorts;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshdns.it.testing.Dns;
import io.meshdns.testsupport.dns.KnotServer;
import io.meshdns.testsupport.MockKubernetesCluster;
import io.meshdns.it.testing.ServiceProcess;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.CatalogSnapshot;
import io.meshdns.model.Kind;
import io.meshdns.model.ObjectRef;
import io.meshdns.model.WireFormat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The whole suite as real processes: two fabric8 CRUD API servers in this JVM stand for
 * the clusters "east" (discovery's local cluster, through quarkus.kubernetes-client.*) and "west"
 * (a kubeconfig file in meshdns.discovery.remote-kubeconfig-dir); the packaged discovery-service
 * watches both; two packaged dns-services follow it over HTTP — "node A" in east (placeholder on) and
 * "node B" in west (placeholder off) — and forward everything else to a real Knot serving {@code com.}.
 * Every check is a UDP query with dnsjava or an HTTP call, awaited with awaitility.
 *
 * <p>The methods run in order and share the processes (one start per class keeps the module fast);
 * each scenario leaves the clusters in a state the later ones build on. Times from an API change to
 * the answer are printed ("measured: ..."), never asserted. That shared, ordered state is why the scenarios are
 * one class: split, each part would have to start every process and rebuild the clusters the earlier ones left.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MeshEndToEndTest {
    private static final String TOKEN = "e2e-shared-token";
    private static final String PLACEHOLDER = "198.18.0.1";
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String GOOGLE_V4 = "198.51.100.7";

    private Path dir;
    private MockKubernetesCluster east;
    private MockKubernetesCluster west;
    private Path remotes;
    private KnotServer knot;
    private ServiceProcess discovery;
    private ServiceProcess nodeA;
    private ServiceProcess nodeB;
    /** A node of east that drops a stale remote cluster's records (meshdns.dns.multicluster.stale-clusters=drop). */
    private ServiceProcess nodeC;
    private Dns dnsA;
    private Dns dnsB;
    private Dns dnsC;
    private final List<String> measured = new ArrayList<>();

    @BeforeAll
    void startEverything() throws Exception {
        dir = Files.createTempDirectory("meshdns-e2e");
        east = new MockKubernetesCluster("east");
        west = new MockKubernetesCluster("west");
        remotes = Files.createDirectories(dir.resolve("remotes"));
        west.writeKubeconfig(remotes);
        east.client().namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("meshdns").endMetadata().build()).create();

        knot = new KnotServer(dir.resolve("knot")).zone("com", """
                $ORIGIN com.
                $TTL 300
                @ IN SOA ns.com. hostmaster.com. 1 3600 600 86400 30
                @ IN NS ns.com.
                ns IN A 127.0.0.1
                google IN A %s
                google IN AAAA 2001:db8::7
                """.formatted(GOOGLE_V4));
        knot.start();

        discovery = new ServiceProcess("discovery", "discovery-service", dir)
                // quarkus.kubernetes-client.api-server-url is fixed at build time in Quarkus 3.33: the
                // packaged service reaches its local cluster through KUBECONFIG, as on a workstation.
                .env("KUBECONFIG", east.writeKubeconfig(Files.createDirectories(dir.resolve("local"))).toString())
                .property("meshdns.discovery.cluster-name", "east")
                .property("meshdns.discovery.namespace", "meshdns")
                .property("meshdns.discovery.remote-kubeconfig-dir", remotes.toString())
                .property("meshdns.discovery.remote-kubeconfig-rescan", "300ms")
                .property("meshdns.discovery.shared-token", TOKEN)
                .property("meshdns.discovery.stale-after", "3s")
                .property("meshdns.discovery.heartbeat-interval", "1s")
                // Generous: on a loaded CI machine a list can take seconds, and a catalog served before every
                // cluster listed would make the nodes drop the slow cluster's records for a while.
                .property("meshdns.discovery.initial-sync-timeout", "120s")
                .property("meshdns.discovery.reconcile-interval", "5s")
                .start();
        nodeA = dnsService("node-a", "east", true).start();
        nodeB = dnsService("node-b", "west", false).start();
        nodeC = dnsService("node-c", "east", false).property("meshdns.dns.multicluster.stale-clusters", "drop").start();
    }

    private ServiceProcess dnsService(String name, String cluster, boolean placeholder) {
        int port = LoopbackPorts.pick();
        ServiceProcess p = new ServiceProcess(name, "dns-service", dir)
                .property("meshdns.dns.port", String.valueOf(port))
                .property("meshdns.dns.upstreams", knot.address())
                .property("meshdns.dns.discovery-url", discovery.httpUrl())
                .property("meshdns.dns.discovery-token", TOKEN)
                .property("meshdns.dns.snapshot-file", dir.resolve(name + "-snapshot.json").toString())
                .property("meshdns.dns.discovery.persist-delay", "200ms")
                .property("meshdns.dns.discovery.backoff-max", "1s")
                .property("meshdns.dns.cluster-name", cluster)
                .property("meshdns.dns.remote-service-policy", "cluster-ip")
                .property("meshdns.dns.placeholder.enabled", String.valueOf(placeholder))
                .property("meshdns.dns.placeholder.ipv4", PLACEHOLDER)
                .property("meshdns.dns.placeholder.service-entry-suffixes", "service.entry");
        if (name.equals("node-a")) dnsA = new Dns(port);
        else if (name.equals("node-b")) dnsB = new Dns(port);
        else dnsC = new Dns(port);
        return p;
    }

    @AfterAll
    void stopEverything() {
        for (AutoCloseable c : new AutoCloseable[]{nodeA, nodeB, nodeC, discovery, knot, east, west}) {
            try {
                if (c != null) c.close();
            } catch (Exception ignored) {
                // keep closing the others
            }
        }
        System.out.println("MeshEndToEndTest timings (informational):\n  " + String.join("\n  ", measured));
    }

    // ---- discovery: create / update / delete → snapshot and answers ------------------------------

    @Test
    @Order(1)
    void servicesFollowCreateUpdateAndDelete() throws Exception {
        KubernetesClient e = east.client();
        namespace(e, "shop");
        namespace(e, "default");
        long t0 = System.nanoTime();
        e.services().inNamespace("shop").resource(clusterIp("web", "10.96.0.10")).create();
        awaitAnswer(dnsA, "web.shop.svc.cluster.local", List.of("10.96.0.10"));
        measure("Service create -> answer at node A", t0);
        await().atMost(WAIT).untilAsserted(() ->
                assertEquals(List.of("10.96.0.10"), ((CatalogEntry.Service) entry(new ObjectRef("east", Kind.SERVICE, "shop", "web")).orElseThrow()).clusterIps()));

        t0 = System.nanoTime();
        e.services().inNamespace("shop").withName("web").edit(s -> new ServiceBuilder(s).editSpec()
                .withClusterIP("10.96.0.11").withClusterIPs("10.96.0.11").endSpec().build());
        awaitAnswer(dnsA, "web.shop.svc.cluster.local", List.of("10.96.0.11"));
        measure("Service update -> answer at node A", t0);

        e.services().inNamespace("shop").resource(clusterIp("gone", "10.96.0.99")).create();
        awaitAnswer(dnsB, "gone.shop.svc.cluster.local", List.of("10.96.0.99"));
        t0 = System.nanoTime();
        e.services().inNamespace("shop").withName("gone").delete();
        awaitAnswer(dnsB, "gone.shop.svc.cluster.local", List.of("[NXDOMAIN]"));
        measure("Service delete -> NXDOMAIN at node B", t0);
        assertTrue(entry(new ObjectRef("east", Kind.SERVICE, "shop", "gone")).isEmpty());
    }

    @Test
    @Order(2)
    void headlessEndpointSlicesFollowCreateUpdateAndDelete() throws Exception {
        KubernetesClient e = east.client();
        e.services().inNamespace("shop").resource(clusterIp("db", "None")).create();
        long t0 = System.nanoTime();
        e.discovery().v1().endpointSlices().inNamespace("shop").resource(slice("db-1", "db", "10.244.1.5", "10.244.1.6")).create();
        awaitAnswer(dnsA, "db.shop.svc.cluster.local", List.of("10.244.1.5", "10.244.1.6"));
        measure("EndpointSlice create -> answer at node A", t0);
        awaitAnswer(dnsB, "db.shop.svc.cluster.local", List.of("10.244.1.5", "10.244.1.6"));

        e.discovery().v1().endpointSlices().inNamespace("shop").resource(slice("db-1", "db", "10.244.1.6")).update();
        awaitAnswer(dnsA, "db.shop.svc.cluster.local", List.of("10.244.1.6"));
        await().atMost(WAIT).untilAsserted(() -> assertEquals(1,
                ((CatalogEntry.EndpointSlice) entry(new ObjectRef("east", Kind.ENDPOINT_SLICE, "shop", "db-1")).orElseThrow()).endpoints().size()));

        e.discovery().v1().endpointSlices().inNamespace("shop").withName("db-1").delete();
        // An empty headless service is NXDOMAIN (node B has no placeholder to paper over it).
        awaitAnswer(dnsB, "db.shop.svc.cluster.local", List.of("[NXDOMAIN]"));
    }

    // ---- multi-cluster: a service only in cluster B resolves at a node of cluster A -------------

    @Test
    @Order(3)
    void remoteOnlyServiceResolvesFromTheOtherClustersNodeAndLocalWins() {
        KubernetesClient w = west.client();
        namespace(w, "shop");
        long t0 = System.nanoTime();
        w.services().inNamespace("shop").resource(clusterIp("reviews", "10.97.0.20")).create();
        awaitAnswer(dnsA, "reviews.shop.svc.cluster.local", List.of("10.97.0.20"));
        measure("remote-cluster Service create -> answer at node A", t0);

        // "web" in both clusters: each node answers with its own cluster's ClusterIP.
        w.services().inNamespace("shop").resource(clusterIp("web", "10.97.0.10")).create();
        awaitAnswer(dnsB, "web.shop.svc.cluster.local", List.of("10.97.0.10"));
        awaitAnswer(dnsA, "web.shop.svc.cluster.local", List.of("10.96.0.11"));
    }

    // ---- ServiceEntries and their VIPs ---------------------------------------------------

    @Test
    @Order(4)
    void serviceEntryVipsAreAllocatedOnceAndIdenticalOnEveryNode() throws Exception {
        west.client().genericKubernetesResources("networking.istio.io/v1", "ServiceEntry").inNamespace("shop")
                .resource(serviceEntry("legacy", List.of("legacy.service.entry", "api.legacy.example"), List.of())).create();
        long t0 = System.nanoTime();
        await().atMost(WAIT).ignoreExceptions().until(() -> dnsA.a("legacy.service.entry").get(0).startsWith("240.240."));
        measure("ServiceEntry create -> VIP answer at node A", t0);
        List<String> v4 = dnsA.a("legacy.service.entry");
        List<String> v6 = dnsA.aaaa("legacy.service.entry");
        assertEquals(1, v4.size());
        assertEquals(1, v6.size());
        assertTrue(v6.get(0).startsWith("2001:2:0:"), v6.toString());
        awaitAnswer(dnsB, "legacy.service.entry", v4);
        assertEquals(v6, dnsB.aaaa("legacy.service.entry"), "same IPv6 VIP on both nodes");
        List<String> other = dnsA.a("api.legacy.example");
        assertEquals(1, other.size());
        assertNotEquals(v4, other, "two hosts never share a VIP");

        CatalogEntry.ServiceEntry se = (CatalogEntry.ServiceEntry) entry(new ObjectRef("west", Kind.SERVICE_ENTRY, "shop", "legacy")).orElseThrow();
        assertEquals(List.of(v4.get(0), v6.get(0)), se.allocatedVips().get("legacy.service.entry"));
        // Persisted centrally, in the local cluster's ConfigMap in discovery's namespace.
        await().atMost(WAIT).untilAsserted(() -> {
            ConfigMap cm = east.client().configMaps().inNamespace("meshdns").withName("meshdns-vips").get();
            assertTrue(cm != null && cm.getData().get("vips").contains("legacy.service.entry " + v4.get(0) + " " + v6.get(0)),
                    () -> "ConfigMap: " + cm);
        });

        // An entry with its own addresses answers them; an update moves the answer; a delete removes it.
        KubernetesClient e = east.client();
        e.genericKubernetesResources("networking.istio.io/v1", "ServiceEntry").inNamespace("shop")
                .resource(serviceEntry("payments", List.of("api.payments.example"), List.of("192.0.2.10"))).create();
        awaitAnswer(dnsB, "api.payments.example", List.of("192.0.2.10"));
        e.genericKubernetesResources("networking.istio.io/v1", "ServiceEntry").inNamespace("shop")
                .resource(serviceEntry("payments", List.of("api.payments.example"), List.of("192.0.2.11"))).update();
        awaitAnswer(dnsB, "api.payments.example", List.of("192.0.2.11"));
        e.genericKubernetesResources("networking.istio.io/v1", "ServiceEntry").inNamespace("shop").withName("payments").delete();
        // Gone from the catalog: the name is outside our zones again and goes to Knot, which has no "example." zone.
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() ->
                assertFalse(dnsB.a("api.payments.example").contains("192.0.2.11")));
        assertTrue(entry(new ObjectRef("east", Kind.SERVICE_ENTRY, "shop", "payments")).isEmpty());
    }

    @Test
    @Order(5)
    void malformedServiceEntryIsSkippedAndTheOthersAreServed() throws Exception {
        var ses = east.client().genericKubernetesResources("networking.istio.io/v1", "ServiceEntry").inNamespace("shop");
        GenericKubernetesResource bad = new GenericKubernetesResourceBuilder().withApiVersion("networking.istio.io/v1").withKind("ServiceEntry")
                .withNewMetadata().withName("broken").withNamespace("shop").endMetadata()
                .addToAdditionalProperties("spec", Map.of("hosts", "not-a-list.example", "resolution", "STATIC")).build();
        ses.resource(bad).create();
        ses.resource(serviceEntry("after-broken", List.of("fine.service.entry"), List.of("192.0.2.50"))).create();
        awaitAnswer(dnsA, "fine.service.entry", List.of("192.0.2.50"));
        assertTrue(entry(new ObjectRef("east", Kind.SERVICE_ENTRY, "shop", "broken")).isEmpty(), "the malformed entry is not in the catalog");
        assertEquals(List.of("10.96.0.11"), dnsA.a("web.shop.svc.cluster.local"), "everything else is still served");
        assertTrue(discovery.isAlive());
    }

    // ---- placeholder, and never for search-path expansions -----------------

    @Test
    @Order(6)
    void unknownNameInAKnownNamespaceGetsThePlaceholderAndItsAaaaIsNodata() {
        Message a = dnsA.query("not-yet.shop.svc.cluster.local", Type.A);
        assertEquals(Rcode.NOERROR, a.getRcode());
        List<Record> answers = a.getSection(Section.ANSWER);
        assertEquals(1, answers.size(), a::toString);
        assertEquals(PLACEHOLDER, answers.get(0).rdataToString());
        assertEquals(60, answers.get(0).getTTL(), "placeholder TTL default");

        Message aaaa = dnsA.query("not-yet.shop.svc.cluster.local", Type.AAAA);
        assertEquals(Rcode.NOERROR, aaaa.getRcode(), "NODATA, not NXDOMAIN");
        assertTrue(aaaa.getSection(Section.ANSWER).isEmpty(), aaaa::toString);

        assertEquals(List.of("[NXDOMAIN]"), dnsA.a("svc.no-such-namespace.svc.cluster.local"), "unknown namespace: no placeholder");
        assertEquals(List.of(PLACEHOLDER), dnsA.a("unknown.service.entry"), "configured ServiceEntry suffix");
        assertEquals(List.of("[NXDOMAIN]"), dnsB.a("not-yet.shop.svc.cluster.local"), "node B has the placeholder off");
    }

    @Test
    @Order(7)
    void searchPathExpansionsOfGoogleComNeverGetThePlaceholderAndGoogleComIsForwarded() {
        // What a pod in namespace "default" with ndots:5 asks before the bare name.
        for (String expansion : List.of("google.com.default.svc.cluster.local", "google.com.svc.cluster.local", "google.com.cluster.local")) {
            List<String> answer = dnsA.a(expansion);
            assertFalse(answer.contains(PLACEHOLDER), expansion + " got the placeholder");
            assertEquals(List.of("[NXDOMAIN]"), answer, expansion);
        }
        long t0 = System.nanoTime();
        assertEquals(List.of(GOOGLE_V4), dnsA.a("google.com"), "forwarded to Knot");
        measure("forwarded google.com (cold) at node A", t0);
        assertEquals(List.of("2001:db8:0:0:0:0:0:7"), dnsA.aaaa("google.com")); // dnsjava prints IPv6 uncompressed
    }

    // ---- discovery: authentication ------------------------------------------------------------------

    @Test
    @Order(8)
    void badTokenGets401AndNothingIsStreamed() throws Exception {
        for (String token : new String[]{"wrong-token", null}) {
            HttpResponse<String> snap = discovery.get("/v1/snapshot", token);
            assertEquals(401, snap.statusCode());
            assertFalse(snap.body().contains("reviews"), snap.body());
            HttpResponse<String> watch = discovery.get("/v1/watch?since=0", token);
            assertEquals(401, watch.statusCode());
            assertFalse(watch.body().contains("version"), "nothing streamed: " + watch.body());
        }
        assertEquals(200, discovery.get("/v1/snapshot", TOKEN).statusCode());
    }

    // ---- discovery: restarts ------------------------------------------------------------------------

    @Test
    @Order(9)
    void discoveryRestartKeepsAnswersAndVipsThenCatchesUp() throws Exception {
        List<String> vipBefore = dnsA.a("legacy.service.entry");
        discovery.stop();
        east.client().services().inNamespace("shop").resource(clusterIp("late", "10.96.0.30")).create();
        // Discovery is down: the nodes keep answering from what they have.
        assertEquals(List.of("10.96.0.11"), dnsA.a("web.shop.svc.cluster.local"));
        assertEquals(List.of("10.97.0.20"), dnsB.a("reviews.shop.svc.cluster.local"));
        assertEquals(200, nodeA.get("/q/health/ready", null).statusCode(), "stays ready while discovery is down");

        long t0 = System.nanoTime();
        discovery.start();
        awaitAnswer(dnsA, "late.shop.svc.cluster.local", List.of("10.96.0.30"));
        awaitAnswer(dnsB, "late.shop.svc.cluster.local", List.of("10.96.0.30"));
        measure("discovery restart -> both nodes caught up", t0);
        // The VIP survives a discovery restart (restored from the ConfigMap).
        awaitAnswer(dnsA, "legacy.service.entry", vipBefore);
        awaitAnswer(dnsB, "legacy.service.entry", vipBefore);
    }

    @Test
    @Order(10)
    void dnsServiceRestartedWhileDiscoveryIsDownAnswersFromThePersistedSnapshot() throws Exception {
        Path file = dir.resolve("node-a-snapshot.json");
        await().atMost(WAIT).until(() -> Files.exists(file) && Files.readString(file).contains("\"late\""));
        discovery.stop();
        nodeA.stop();
        long t0 = System.nanoTime();
        nodeA.start();
        measure("node A restart (discovery down) -> ready", t0);
        assertEquals(List.of("10.96.0.30"), dnsA.a("late.shop.svc.cluster.local"));
        assertEquals(List.of("10.97.0.20"), dnsA.a("reviews.shop.svc.cluster.local"));
        assertEquals(1, dnsA.a("legacy.service.entry").size());

        discovery.start();
        east.client().services().inNamespace("shop").resource(clusterIp("after-restarts", "10.96.0.31")).create();
        awaitAnswer(dnsA, "after-restarts.shop.svc.cluster.local", List.of("10.96.0.31"));
    }

    // ---- discovery: a cluster going away and coming back ---------------------------------------------

    @Test
    @Order(11)
    void clusterApiOutageMarksItStaleKeepsItsStateAndRecovers() throws Exception {
        awaitAnswer(dnsC, "reviews.shop.svc.cluster.local", List.of("10.97.0.20"));
        west.stop();
        long t0 = System.nanoTime();
        // Node C drops a stale cluster: how long a dead cluster takes to leave its answers (stale-after is 3s here).
        awaitAnswer(dnsC, "reviews.shop.svc.cluster.local", List.of("[NXDOMAIN]"));
        measure("remote API server stopped -> its Service gone at the dropping node C (stale-after 3s)", t0);
        await().atMost(WAIT).until(() -> westStatus().contains("\"stale\":true"));
        assertEquals(List.of("10.97.0.20"), dnsA.a("reviews.shop.svc.cluster.local"), "last known state is kept");
        assertEquals(List.of("10.96.0.11"), dnsA.a("web.shop.svc.cluster.local"), "other clusters unaffected");

        west.start();
        west.client().services().inNamespace("shop").resource(clusterIp("ratings", "10.97.0.40")).create();
        awaitAnswer(dnsA, "ratings.shop.svc.cluster.local", List.of("10.97.0.40"));
        awaitAnswer(dnsC, "reviews.shop.svc.cluster.local", List.of("10.97.0.20"));
        await().atMost(WAIT).until(() -> westStatus().contains("\"stale\":false"));
    }

    @Test
    @Order(12)
    void clusterRemovedFromTheKubeconfigDirGoesAwayAndComesBack() throws Exception {
        Path kubeconfig = remotes.resolve("west.yaml");
        Files.delete(kubeconfig);
        awaitAnswer(dnsB, "reviews.shop.svc.cluster.local", List.of("[NXDOMAIN]"));
        assertTrue(entry(new ObjectRef("west", Kind.SERVICE, "shop", "reviews")).isEmpty());
        assertEquals(List.of("10.96.0.11"), dnsB.a("web.shop.svc.cluster.local"), "east's web is all that is left");

        west.writeKubeconfig(remotes);
        awaitAnswer(dnsB, "reviews.shop.svc.cluster.local", List.of("10.97.0.20"));
        awaitAnswer(dnsB, "web.shop.svc.cluster.local", List.of("10.97.0.10"));
    }

    // ---- Istio's own VIPs, exportTo per client -------------------------------------------------------

    @Test
    @Order(13)
    void istioStatusAddressesAreAnsweredOnEveryNodeAndFollowed() throws Exception {
        var ses = east.client().genericKubernetesResources("networking.istio.io/v1", "ServiceEntry").inNamespace("shop");
        ses.resource(withStatus(serviceEntry("held", List.of("held.istio.example"), List.of()),
                Map.of("held.istio.example", List.of("240.240.0.77", "2001:2::77")))).create();
        long t0 = System.nanoTime();
        awaitAnswer(dnsA, "held.istio.example", List.of("240.240.0.77"));
        measure("ServiceEntry status.addresses -> answer at node A", t0);
        awaitAnswer(dnsB, "held.istio.example", List.of("240.240.0.77"));
        assertEquals(List.of("2001:2:0:0:0:0:0:77"), dnsA.aaaa("held.istio.example"));
        assertEquals(List.of("2001:2:0:0:0:0:0:77"), dnsB.aaaa("held.istio.example"));

        // Istio moves its address: both nodes follow.
        GenericKubernetesResource moved = withStatus(ses.withName("held").get(), Map.of("held.istio.example", List.of("240.240.0.78")));
        ses.resource(moved).update();
        t0 = System.nanoTime();
        awaitAnswer(dnsA, "held.istio.example", List.of("240.240.0.78"));
        measure("status.addresses change -> answer at node A", t0);
        awaitAnswer(dnsB, "held.istio.example", List.of("240.240.0.78"));

        // Our own VIP never collides with one Istio holds: Istio takes the VIP we gave another host; at that host's next
        // change it gets a new one.
        ses.resource(serviceEntry("ours", List.of("ours.istio.example"), List.of())).create();
        await().atMost(WAIT).ignoreExceptions().until(() -> dnsA.a("ours.istio.example").get(0).startsWith("240.240."));
        String ours = dnsA.a("ours.istio.example").get(0);
        ses.resource(withStatus(serviceEntry("taker", List.of("taker.istio.example"), List.of()),
                Map.of("taker.istio.example", List.of(ours)))).create();
        awaitAnswer(dnsA, "taker.istio.example", List.of(ours));
        GenericKubernetesResource touched = ses.withName("ours").get();
        spec(touched).put("ports", List.of(Map.of("number", 80, "name", "http", "protocol", "HTTP"),
                Map.of("number", 8080, "name", "http-alt", "protocol", "HTTP")));
        ses.resource(touched).update();
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            List<String> now = dnsA.a("ours.istio.example");
            assertEquals(1, now.size());
            assertTrue(now.get(0).startsWith("240.240.") && !now.get(0).equals(ours), "own VIP moved off the Istio-held " + ours + ": " + now);
        });
        assertEquals(dnsA.a("ours.istio.example"), dnsB.a("ours.istio.example"), "the new VIP is the same on every node");

        // The opt-out label: no VIP from Istio, none from us (node A's suffix zone then answers the placeholder).
        GenericKubernetesResource optOut = serviceEntry("opt-out", List.of("opt-out.service.entry"), List.of());
        optOut.getMetadata().setLabels(Map.of("networking.istio.io/enable-autoallocate-ip", "false"));
        ses.resource(optOut).create();
        await().atMost(WAIT).until(() -> entry(new ObjectRef("east", Kind.SERVICE_ENTRY, "shop", "opt-out")).isPresent());
        assertEquals(List.of(PLACEHOLDER), dnsA.a("opt-out.service.entry"));
        assertTrue(((CatalogEntry.ServiceEntry) entry(new ObjectRef("east", Kind.SERVICE_ENTRY, "shop", "opt-out")).orElseThrow())
                .allocatedVips().isEmpty());
    }

    @Test
    @Order(14)
    void exportToIsAppliedPerClientPodNamespace() throws Exception {
        KubernetesClient e = east.client();
        // Two pods of two namespaces, on loopback addresses the queries are then sent from.
        pod(e, "shop", "client-shop", "127.0.0.2");
        pod(e, "default", "client-default", "127.0.0.3");
        var ses = e.genericKubernetesResources("networking.istio.io/v1", "ServiceEntry").inNamespace("shop");
        GenericKubernetesResource own = serviceEntry("own-ns", List.of("own.export.example"), List.of("192.0.2.90"));
        spec(own).put("exportTo", List.of("."));
        ses.resource(own).create();
        Dns fromShop = dnsA.from("127.0.0.2");
        Dns fromDefault = dnsA.from("127.0.0.3");
        Dns fromNoPod = dnsA.from("127.0.0.9");
        awaitAnswer(fromShop, "own.export.example", List.of("192.0.2.90"));
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() ->
                assertFalse(fromDefault.a("own.export.example").contains("192.0.2.90"), "not exported to default"));
        assertFalse(fromNoPod.a("own.export.example").contains("192.0.2.90"), "an unknown client sees only '*'");
        assertEquals(List.of("192.0.2.90"), fromShop.a("own.export.example"), "still there for its own namespace");

        // A Service with the exportTo annotation: visible in its namespace; elsewhere the placeholder, as for no Service.
        Service internal = clusterIp("internal", "10.96.0.70");
        internal.getMetadata().setAnnotations(Map.of("networking.istio.io/exportTo", "."));
        e.services().inNamespace("shop").resource(internal).create();
        awaitAnswer(fromShop, "internal.shop.svc.cluster.local", List.of("10.96.0.70"));
        awaitAnswer(fromDefault, "internal.shop.svc.cluster.local", List.of(PLACEHOLDER));
    }

    private static void pod(KubernetesClient c, String namespace, String name, String ip) {
        io.fabric8.kubernetes.api.model.Pod p = new io.fabric8.kubernetes.api.model.PodBuilder()
                .withNewMetadata().withName(name).withNamespace(namespace).endMetadata()
                .withNewSpec().addNewContainer().withName("app").withImage("app").endContainer().endSpec()
                .withNewStatus().withPhase("Running").withPodIP(ip).addNewPodIP().withIp(ip).endPodIP().endStatus().build();
        c.pods().inNamespace(namespace).resource(p).create();
        if (c.pods().inNamespace(namespace).withName(name).get().getStatus() == null
                || c.pods().inNamespace(namespace).withName(name).get().getStatus().getPodIP() == null) {
            c.pods().inNamespace(namespace).resource(p).updateStatus();
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> spec(GenericKubernetesResource r) {
        return (Map<String, Object>) r.getAdditionalProperties().get("spec");
    }

    /** {@code status.addresses} as Istio's auto-allocation writes it: one {host, value} per address. */
    private static GenericKubernetesResource withStatus(GenericKubernetesResource r, Map<String, List<String>> byHost) {
        List<Map<String, String>> addresses = new ArrayList<>();
        byHost.forEach((host, ips) -> ips.forEach(ip -> addresses.add(Map.of("host", host, "value", ip))));
        r.getAdditionalProperties().put("status", Map.of("addresses", addresses));
        return r;
    }

    // ---- helpers ------------------------------------------------------------------------------------

    private String westStatus() throws Exception {
        HttpResponse<String> r = discovery.get("/v1/status", TOKEN);
        String body = r.body().replace(" ", "");
        int i = body.indexOf("\"name\":\"west\"");
        return i < 0 ? "" : body.substring(i, Math.min(body.length(), body.indexOf('}', i) + 1));
    }

    private void awaitAnswer(Dns dns, String name, List<String> expected) {
        await(name + " -> " + expected).atMost(WAIT).pollInterval(Duration.ofMillis(20)).ignoreExceptions()
                .untilAsserted(() -> assertEquals(expected, dns.a(name)));
    }

    private void measure(String what, long t0) {
        measured.add(what + ": " + (System.nanoTime() - t0) / 1_000_000 + " ms");
    }

    private Optional<CatalogEntry> entry(ObjectRef ref) throws Exception {
        HttpResponse<String> r = discovery.get("/v1/snapshot", TOKEN);
        assertEquals(200, r.statusCode());
        CatalogSnapshot s = WireFormat.decode(r.body(), CatalogSnapshot.class);
        return s.entries().stream().filter(e -> e.ref().equals(ref)).findFirst();
    }

    private static void namespace(KubernetesClient c, String name) {
        c.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build()).create();
    }

    private static Service clusterIp(String name, String ip) {
        return new ServiceBuilder().withNewMetadata().withName(name).withNamespace("shop").endMetadata()
                .withNewSpec().withClusterIP(ip).withClusterIPs(ip).addNewPort().withName("http").withPort(80).withProtocol("TCP").endPort().endSpec().build();
    }

    private static EndpointSlice slice(String name, String service, String... ips) {
        EndpointSliceBuilder b = new EndpointSliceBuilder().withNewMetadata().withName(name).withNamespace("shop")
                .addToLabels("kubernetes.io/service-name", service).endMetadata().withAddressType("IPv4");
        for (String ip : ips) b.addNewEndpoint().withAddresses(ip).withNewConditions().withReady(true).endConditions().endEndpoint();
        return b.build();
    }

    private static GenericKubernetesResource serviceEntry(String name, List<String> hosts, List<String> addresses) {
        Map<String, Object> spec = new java.util.LinkedHashMap<>();
        spec.put("hosts", hosts);
        if (!addresses.isEmpty()) spec.put("addresses", addresses);
        spec.put("resolution", addresses.isEmpty() ? "DNS" : "STATIC");
        spec.put("location", "MESH_EXTERNAL");
        spec.put("ports", List.of(Map.of("number", 80, "name", "http", "protocol", "HTTP")));
        return new GenericKubernetesResourceBuilder().withApiVersion("networking.istio.io/v1").withKind("ServiceEntry")
                .withNewMetadata().withName(name).withNamespace("shop").endMetadata()
                .addToAdditionalProperties("spec", spec).build();
    }
}
