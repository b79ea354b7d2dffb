package io.meshdns.discovery.cluster;

import io.meshdns.discovery.kinds.DiscoveryKinds;

import io.meshdns.discovery.rejection.RejectionReporter;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.meshdns.discovery.catalog.CatalogAggregator;
import io.meshdns.discovery.metrics.DiscoveryMetrics;
import io.meshdns.discovery.translate.Translation;
import io.meshdns.discovery.kinds.EndpointSliceKind;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.ClusterStatus;
import io.meshdns.model.Kind;
import io.meshdns.model.ObjectRef;
import io.meshdns.testsupport.FaultProxy;
import io.meshdns.testsupport.MockKubernetesCluster;
import io.meshdns.testsupport.WatchCacheCrudDispatcher;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Discovery's watches cut under it, over real sockets: one {@link ClusterWatcher} (as for a remote cluster, its
 * client built from a kubeconfig with fabric8's defaults) reaches fabric8's CRUD API server through a
 * {@link FaultProxy}. The API server's watches resume from their resourceVersion and answer 410 Gone after a
 * compaction, as kube-apiserver's do ({@link WatchCacheCrudDispatcher}). While Services, EndpointSlices and
 * ServiceEntries are created, updated and deleted straight at the API server, the proxy resets every connection
 * (RST), refuses for a while, or the API server compacts; each time discovery's catalog must end equal to what
 * the API server holds, deletes made while discovery was cut off included.
 */
class WatchFaultTest {
    private static final String CLUSTER = "east";
    private static final Duration STALE_AFTER = Duration.ofSeconds(2);
    private static final Duration CONVERGE = Duration.ofSeconds(30);
    /** Namespace, Service, EndpointSlice, ServiceEntry: one watch each. */
    private static final int WATCHES = 4;

    private final WatchCacheCrudDispatcher api = new WatchCacheCrudDispatcher();
    private MockKubernetesCluster cluster;
    private FaultProxy proxy;
    private ScheduledExecutorService scheduler;
    private CatalogAggregator catalog;
    private ClusterWatcher watcher;
    private final Random random = new Random(20261203);
    private final List<String> figures = new ArrayList<>();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @BeforeEach
    void start() {
        cluster = new MockKubernetesCluster(CLUSTER, api);
        proxy = new FaultProxy("127.0.0.1", cluster.port());
        KubernetesClient admin = cluster.client();
        for (String ns : List.of("shop", "pay")) {
            admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build()).create();
        }
        for (int i = 0; i < 30; i++) change();

        scheduler = Executors.newScheduledThreadPool(2);
    }

    /** Discovery's side: one cluster watcher feeding a catalog, as ClusterManager runs it for a remote cluster. */
    private void startDiscovery(Duration staleAfter) {
        catalog = new CatalogAggregator(1, 50, 1000, scheduler);
        catalog.expectInitialSync("cluster:" + CLUSTER);
        DiscoveryMetrics metrics = new DiscoveryMetrics(registry, catalog);
        // Built as ClusterManager builds a remote cluster's client: a kubeconfig, fabric8's defaults otherwise.
        KubernetesClient client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(MockKubernetesCluster.kubeconfig(CLUSTER, proxy.url()))).build();
        watcher = new ClusterWatcher(CLUSTER, false, client, true, catalog, metrics,
                new RejectionReporter(false, Runnable::run),
                new ClusterWatcher.Options(java.util.Set.of(io.meshdns.model.Kind.SERVICE_ENTRY), staleAfter, Duration.ofMinutes(10), Duration.ofSeconds(1)));
        watcher.start();
        // ClusterManager's cadence; the periodic reconcile is left out (10 minutes): convergence must not need it.
        scheduler.scheduleWithFixedDelay(watcher::tick, 1000, 1000, TimeUnit.MILLISECONDS);
    }

    @AfterEach
    void stop() throws InterruptedException {
        System.out.println("WatchFaultTest figures (load " + loadAverage() + "): " + String.join("; ", figures));
        if (watcher != null) {
            watcher.close();
            watcher.awaitClosed(Duration.ofSeconds(5));
        }
        scheduler.shutdownNow();
        proxy.close();
        cluster.close();
    }

    @Test
    void connectionResetsDuringChangesAndARefusalEndEqualToTheApiServer() throws Exception {
        startDiscovery(STALE_AFTER);
        awaitConverged("initial list");

        // Resets while changes are made at the API server: each cut lands on established watches.
        for (int round = 0; round < 2; round++) {
            AtomicBoolean churning = new AtomicBoolean(true);
            Thread churn = churn(churning);
            for (int cut = 0; cut < 2; cut++) {
                await("every watch back before the next cut", CONVERGE, () -> api.liveWatches() >= WATCHES);
                int reset = proxy.resetAll();
                // Usually the 4 WebSocket watches and pooled connections; a watch that fell back to HTTP may be between polls.
                assertTrue(reset >= 1, "the cut aborted connections: " + reset);
                Thread.sleep(150);
            }
            churning.set(false);
            churn.join();
            long cut = System.nanoTime();
            proxy.resetAll();
            for (int i = 0; i < 5; i++) change(); // made while every watch is down
            figures.add("converged " + awaitConverged("after reset round " + round).toMillis() + " ms after a reset with 5 changes behind it"
                    + " (" + millisSince(cut) + " ms incl. the changes)");
        }
        assertEquals(0, api.goneAnswers(), "no compaction: every watch resumed from its resourceVersion, no relist");

        // Refused for longer than stale-after: the cluster is reported stale, its last known state is kept.
        Map<ObjectRef, CatalogEntry> before = discovered();
        await("watching", CONVERGE, () -> watcher.syncState().watching());
        long refused = System.currentTimeMillis();
        proxy.refuse();
        // The live sync state shows the cut within a tick, long before the cluster is called stale.
        await("the sync state shows the cut", Duration.ofSeconds(5), () -> !watcher.syncState().watching());
        ClusterWatcher.SyncState cut = watcher.syncState();
        boolean staleWhenSeen = status().stale();
        long seen = System.currentTimeMillis();
        // Stale can only be set after lastHealthy + stale-after; a test thread stalled past that proves nothing.
        if (seen - cut.lastHealthyEpochMillis() <= STALE_AFTER.toMillis()) assertFalse(staleWhenSeen, "the cut shows before stale");
        assertEquals(Map.of(Kind.NAMESPACE, "down", Kind.SERVICE, "down", Kind.ENDPOINT_SLICE, "down", Kind.SERVICE_ENTRY, "down"),
                cut.watches());
        assertTrue(cut.lastHealthyEpochMillis() >= refused - 5000 && cut.lastHealthyEpochMillis() <= seen, "last healthy: " + cut);
        assertEquals(0.0, watchingGauge());
        for (int i = 0; i < 10; i++) change();
        await("stale after " + STALE_AFTER, CONVERGE, () -> status().stale());
        assertEquals(before, discovered(), "a stale cluster keeps its last known state");
        for (int i = 0; i < 5; i++) change();
        List<ObjectRef> deleted = deleteSome(6);
        proxy.accept();
        long back = System.nanoTime();
        awaitConverged("after the refusal");
        await("no longer stale", CONVERGE, () -> !status().stale());
        await("watching again", CONVERGE, () -> watcher.syncState().watching());
        assertTrue(watcher.syncState().watches().values().stream().allMatch("watching"::equals), watcher.syncState().toString());
        assertEquals(1.0, watchingGauge());
        figures.add("converged " + millisSince(back) + " ms after " + STALE_AFTER.toSeconds() + "+ s refused");
        Map<ObjectRef, CatalogEntry> after = discovered();
        for (ObjectRef ref : deleted) assertFalse(after.containsKey(ref), "deleted while away: " + ref);
        assertTrue(proxy.connectionsReset() >= 6, "connections reset: " + proxy.connectionsReset());
    }

    @Test
    void aWatchAnswered410GoneRelistsAndLosesNoDelete() throws Exception {
        // Never stale here: the informers' own relist after 410 is the only way back (no restart, no reconcile).
        startDiscovery(Duration.ofMinutes(10));
        awaitConverged("initial list");
        for (int round = 0; round < 2; round++) {
            Map<ObjectRef, CatalogEntry> known = discovered();
            int goneBefore = api.goneAnswers();
            await("every watch up", CONVERGE, () -> api.liveWatches() >= WATCHES);
            long cut = System.nanoTime();
            proxy.refuse();
            for (int i = 0; i < 10; i++) change();
            List<ObjectRef> deleted = deleteSome(5);
            api.compact(); // what the watches missed is gone from the API server's history
            proxy.accept();
            Duration converged = awaitConverged("after 410 Gone, round " + round);
            assertTrue(api.goneAnswers() - goneBefore >= WATCHES, "each resumed watch was answered 410: " + (api.goneAnswers() - goneBefore));
            assertFalse(status().stale());
            for (ObjectRef ref : deleted) {
                assertTrue(known.containsKey(ref), "was discovered before the cut: " + ref);
                assertFalse(discovered().containsKey(ref), "deleted while the watch was out of date: " + ref);
            }
            figures.add("410 as an ERROR event: converged " + converged.toMillis() + " ms after the watches were let back ("
                    + millisSince(cut) + " ms after the cut)");
        }
    }

    @Test
    void aWatchRequestAnsweredHttp410RecoversThroughTheStaleRestart() throws Exception {
        startDiscovery(STALE_AFTER);
        awaitConverged("initial list");
        api.goneAnswer(WatchCacheCrudDispatcher.GoneAnswer.HTTP_STATUS);
        await("every watch up", CONVERGE, () -> api.liveWatches() >= WATCHES);
        long cut = System.nanoTime();
        proxy.refuse();
        for (int i = 0; i < 10; i++) change();
        List<ObjectRef> deleted = deleteSome(5);
        api.compact();
        proxy.accept();
        // fabric8 retries a watch refused with HTTP 410 from the same resourceVersion, with backoff, and never
        // relists by itself: discovery's restart of a stale cluster's informers is what brings it back.
        await("stale", CONVERGE, () -> status().stale());
        Duration converged = awaitConverged("after HTTP 410 on the resumed watches");
        assertTrue(api.goneAnswers() >= WATCHES, "the resumed watches were answered HTTP 410: " + api.goneAnswers());
        for (ObjectRef ref : deleted) assertFalse(discovered().containsKey(ref), "deleted while cut off: " + ref);
        await("no longer stale", CONVERGE, () -> !status().stale());
        figures.add("HTTP 410 on watch requests: converged " + converged.toMillis() + " ms after the watches were let back ("
                + millisSince(cut) + " ms after the cut)");
    }

    // ---- the API server's side -------------------------------------------------------------

    /** One random create, update or delete of a Service, EndpointSlice or ServiceEntry, straight at the API server. */
    private void change() {
        KubernetesClient c = cluster.client();
        String ns = random.nextBoolean() ? "shop" : "pay";
        String name = "o" + random.nextInt(12);
        int kind = random.nextInt(3);
        HasMetadata existing = switch (kind) {
            case 0 -> c.services().inNamespace(ns).withName(name).get();
            case 1 -> c.discovery().v1().endpointSlices().inNamespace(ns).withName(name).get();
            default -> serviceEntries(c, ns).withName(name).get();
        };
        if (existing != null && random.nextInt(10) < 3) {
            delete(c, kind, ns, name);
            return;
        }
        String octet = Integer.toString(1 + random.nextInt(250));
        switch (kind) {
            case 0 -> c.services().inNamespace(ns).resource(new ServiceBuilder().withNewMetadata().withName(name).withNamespace(ns).endMetadata()
                    .withNewSpec().withClusterIP("10.96.7." + octet).addNewPort().withName("http").withPort(80).withProtocol("TCP").endPort()
                    .endSpec().build()).createOr(x -> x.update());
            case 1 -> c.discovery().v1().endpointSlices().inNamespace(ns).resource(new EndpointSliceBuilder().withNewMetadata().withName(name)
                    .withNamespace(ns).addToLabels(EndpointSliceKind.SERVICE_NAME_LABEL, name).endMetadata().withAddressType("IPv4")
                    .addNewEndpoint().withAddresses("10.244.7." + octet).withNewConditions().withReady(true).endConditions().endEndpoint()
                    .addNewPort().withName("http").withPort(8080).withProtocol("TCP").endPort().build()).createOr(x -> x.update());
            default -> serviceEntries(c, ns).resource(serviceEntry(ns, name, octet)).createOr(x -> x.update());
        }
    }

    /** Deletes n objects discovery knows of, taking Services, EndpointSlices and ServiceEntries in turn; their refs. */
    private List<ObjectRef> deleteSome(int n) {
        Map<Kind, Deque<ObjectRef>> byKind = new EnumMap<>(Kind.class);
        for (ObjectRef ref : new TreeSet<>(discovered().keySet())) {
            if (ref.kind() != Kind.NAMESPACE) byKind.computeIfAbsent(ref.kind(), k -> new ArrayDeque<>()).add(ref);
        }
        List<ObjectRef> out = new ArrayList<>();
        while (out.size() < n && byKind.values().stream().anyMatch(q -> !q.isEmpty())) {
            for (Deque<ObjectRef> q : byKind.values()) {
                ObjectRef ref = q.poll();
                if (ref == null || out.size() == n) continue;
                int kind = switch (ref.kind()) {
                    case SERVICE -> 0;
                    case ENDPOINT_SLICE -> 1;
                    default -> 2;
                };
                delete(cluster.client(), kind, ref.namespace(), ref.name());
                out.add(ref);
            }
        }
        assertEquals(n, out.size());
        return out;
    }

    private static void delete(KubernetesClient c, int kind, String ns, String name) {
        switch (kind) {
            case 0 -> c.services().inNamespace(ns).withName(name).delete();
            case 1 -> c.discovery().v1().endpointSlices().inNamespace(ns).withName(name).delete();
            default -> serviceEntries(c, ns).withName(name).delete();
        }
    }

    private Thread churn(AtomicBoolean running) {
        Thread t = new Thread(() -> {
            for (int i = 0; i < 400 && running.get(); i++) {
                change();
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "churn");
        t.start();
        return t;
    }

    private static NonNamespaceOperation<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>>
            serviceEntries(KubernetesClient c, String ns) {
        return c.genericKubernetesResources("networking.istio.io/v1", "ServiceEntry").inNamespace(ns);
    }

    private static GenericKubernetesResource serviceEntry(String ns, String name, String octet) {
        return new GenericKubernetesResourceBuilder().withApiVersion("networking.istio.io/v1").withKind("ServiceEntry")
                .withNewMetadata().withName(name).withNamespace(ns).endMetadata()
                .addToAdditionalProperties("spec", Map.of("hosts", List.of(name + "." + ns + ".example"),
                        "addresses", List.of("192.0.2." + octet), "resolution", "STATIC"))
                .build();
    }

    /** What discovery should hold: the API server's objects, read without the proxy, translated. */
    private Map<ObjectRef, CatalogEntry> truth() {
        KubernetesClient c = cluster.client();
        List<HasMetadata> objects = new ArrayList<>();
        objects.addAll(c.namespaces().list().getItems());
        objects.addAll(c.services().inAnyNamespace().list().getItems());
        objects.addAll(c.discovery().v1().endpointSlices().inAnyNamespace().list().getItems());
        objects.addAll(c.genericKubernetesResources("networking.istio.io/v1", "ServiceEntry").inAnyNamespace().list().getItems());
        Map<ObjectRef, CatalogEntry> out = new HashMap<>();
        for (HasMetadata o : objects) {
            if (DiscoveryKinds.translate(CLUSTER, o) instanceof Translation.Accepted a) out.put(a.entry().ref(), a.entry());
        }
        return out;
    }

    // ---- discovery's side ------------------------------------------------------------------

    private Map<ObjectRef, CatalogEntry> discovered() {
        Map<ObjectRef, CatalogEntry> out = new HashMap<>();
        catalog.current().entries().forEach((ref, e) -> {
            if (ref.cluster().equals(CLUSTER)) out.put(ref, e);
        });
        return out;
    }

    private double watchingGauge() {
        return registry.get("meshdns.discovery.cluster.watching").tag("cluster", CLUSTER).gauge().value();
    }

    private ClusterStatus status() {
        return catalog.current().clusters().stream().filter(c -> c.name().equals(CLUSTER)).findFirst().orElseThrow();
    }

    /** Waits until discovery's catalog equals the API server's objects; how long that took. */
    private Duration awaitConverged(String when) throws InterruptedException {
        long t0 = System.nanoTime();
        long deadline = t0 + CONVERGE.toNanos();
        Map<ObjectRef, CatalogEntry> truth = truth();
        while (true) {
            Map<ObjectRef, CatalogEntry> got = discovered();
            if (got.equals(truth) && catalog.isReady()) return Duration.ofNanos(System.nanoTime() - t0);
            if (System.nanoTime() > deadline) {
                throw new AssertionError("discovery not equal to the API server " + CONVERGE + " " + when + ": " + diff(truth, got));
            }
            Thread.sleep(10);
        }
    }

    private static String diff(Map<ObjectRef, CatalogEntry> truth, Map<ObjectRef, CatalogEntry> got) {
        List<String> d = new ArrayList<>();
        truth.forEach((ref, e) -> {
            if (!got.containsKey(ref)) d.add("missing " + ref);
            else if (!got.get(ref).equals(e)) d.add("differs " + ref + ": " + got.get(ref) + " vs " + e);
        });
        got.keySet().forEach(ref -> {
            if (!truth.containsKey(ref)) d.add("extra " + ref);
        });
        return d.size() + " differences: " + d;
    }

    private static void await(String what, Duration max, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("not within " + max + ": " + what);
            Thread.sleep(10);
        }
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    private static String loadAverage() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim();
        } catch (java.io.IOException e) {
            return "?";
        }
    }
}
