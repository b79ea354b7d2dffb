package io.meshdns.discovery.cluster;

import io.meshdns.discovery.rejection.RejectionReporter;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.meshdns.discovery.catalog.CatalogAggregator;
import io.meshdns.discovery.metrics.DiscoveryMetrics;
import io.meshdns.discovery.translate.Translation;
import io.meshdns.discovery.kinds.DiscoveryKind;
import io.meshdns.discovery.kinds.DiscoveryKinds;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.ClusterStatus;
import io.meshdns.model.Kind;
import io.meshdns.model.ObjectRef;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Watches one cluster with fabric8 SharedIndexInformers and feeds the catalog.
 *
 * <p>Every informer callback, the periodic store-versus-catalog reconcile and the health tick run
 * on this watcher's single thread. That ordering is what makes the reconcile safe: a store change
 * after the reconcile read it is always followed by its own event, so the catalog converges to the
 * informer store (which fabric8 keeps equal to the API server across relists and 410 Gone).
 * A slow or unreachable cluster only ever blocks its own thread.
 */
public final class ClusterWatcher implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ClusterWatcher.class);

    /**
     * The knobs a watcher needs, taken from the config once.
     *
     * @param optionalKinds the optional kinds of {@link DiscoveryKinds} that are on (each row's switch, read by ClusterManager)
     */
    public record Options(Set<Kind> optionalKinds, Duration staleAfter, Duration resync, Duration crdRetry) {
        public Options {
            optionalKinds = Set.copyOf(optionalKinds);
        }
    }

    /**
     * What this cluster's watches are doing now (for {@code /v1/status} and the metrics), refreshed every tick.
     * Unlike {@code stale}, which waits for stale-after, it shows a cut watch within a tick, and it is not in the
     * catalog, so it makes no new version.
     *
     * @param watching               every watch is established (the catalog follows the cluster live)
     * @param lastHealthyEpochMillis when that was last true (0 before the initial list): the catalog's state of this
     *                               cluster is at least as new as that
     * @param watches                per kind: {@code watching}, {@code listing} (the initial list is not done),
     *                               {@code down} (reconnecting or relisting) or {@code crd-missing}
     */
    public record SyncState(boolean watching, long lastHealthyEpochMillis, Map<Kind, String> watches) {
        public SyncState {
            watches = Map.copyOf(watches);
        }
    }

    private record Watched(Kind kind, String apiVersion, Function<KubernetesClient, SharedIndexInformer<HasMetadata>> factory,
                           SharedIndexInformer<HasMetadata> informer) {
    }

    private final String cluster;
    private final boolean local;
    private final KubernetesClient client;
    private final boolean ownsClient;
    private final CatalogAggregator aggregator;
    private final DiscoveryMetrics metrics;
    private final RejectionReporter rejections;
    private final Options options;
    private final ExecutorService thread;
    private final List<Watched> watched = new ArrayList<>();
    private final Map<Kind, Boolean> crdMissing = new ConcurrentHashMap<>();
    private final AtomicInteger staleGauge = new AtomicInteger();
    private final AtomicInteger watchingGauge = new AtomicInteger();
    private volatile SyncState syncState = new SyncState(false, 0, Map.of());

    private volatile boolean closed;
    private boolean initialSynced;
    private boolean stale;
    private long lastHealthyMillis;
    private long lastSyncMillis;
    private long nextCrdCheckMillis;

    public ClusterWatcher(String cluster, boolean local, KubernetesClient client, boolean ownsClient, CatalogAggregator aggregator,
                          DiscoveryMetrics metrics, RejectionReporter rejections, Options options) {
        this.cluster = cluster;
        this.local = local;
        this.client = client;
        this.ownsClient = ownsClient;
        this.aggregator = aggregator;
        this.metrics = metrics;
        this.rejections = rejections;
        this.options = options;
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "meshdns-cluster-" + cluster);
            t.setDaemon(true);
            return t;
        });
    }

    public String cluster() {
        return cluster;
    }

    /** The id this watcher's initial sync is awaited under (see CatalogAggregator#expectInitialSync). */
    public String sourceId() {
        return "cluster:" + cluster;
    }

    public void start() {
        long now = System.currentTimeMillis();
        lastHealthyMillis = now;
        metrics.clusterStale(cluster, staleGauge);
        metrics.clusterWatching(cluster, watchingGauge);
        aggregator.updateCluster(status());
        thread.execute(() -> {
            for (DiscoveryKind k : DiscoveryKinds.ALL) {
                if (!k.enabled(options.optionalKinds())) continue;
                if (k.custom()) crdMissing.put(k.kind(), true); // watched once its CRD is served
                else watch(k.kind(), k.apiVersions().get(0), informerOf(k, k.apiVersions().get(0)));
            }
            watchCustomResources();
        });
    }

    /** Periodic: readiness, staleness, CRD retries. Cheap; called about every second. */
    public void tick() {
        if (closed) return;
        onOwnThread(() -> {
            if (closed) return;
            long now = System.currentTimeMillis();
            if (now >= nextCrdCheckMillis && crdMissing.containsValue(true)) watchCustomResources();
            boolean synced = !watched.isEmpty() && watched.stream().allMatch(w -> w.informer().hasSynced());
            boolean watching = synced && watched.stream().allMatch(w -> w.informer().isWatching());
            if (synced && !initialSynced) {
                initialSynced = true;
                reconcileNow();
                lastSyncMillis = now;
                lastHealthyMillis = now;
                aggregator.updateCluster(status());
                aggregator.initialSyncDone(sourceId());
                LOG.infof("cluster %s: initial list done", cluster);
            }
            if (watching) {
                lastHealthyMillis = now;
                if (stale) {
                    stale = false;
                    staleGauge.set(0);
                    // Whatever happened while we were away, the informer relisted: make sure we match it.
                    reconcileNow();
                    lastSyncMillis = now;
                    aggregator.updateCluster(status());
                    LOG.infof("cluster %s: watching again, no longer stale", cluster);
                }
            } else if (!stale && now - lastHealthyMillis > options.staleAfter().toMillis()) {
                stale = true;
                staleGauge.set(1);
                aggregator.updateCluster(status());
                LOG.warnf("cluster %s: no healthy watch for %s, marked stale (its last known state is still served)",
                        cluster, options.staleAfter());
                if (initialSynced) restartInformers();
            }
            publishSyncState(watching);
        });
    }

    /** This cluster's watches now, as of the last tick. */
    public SyncState syncState() {
        return syncState;
    }

    private void publishSyncState(boolean watching) {
        Map<Kind, String> watches = new EnumMap<>(Kind.class);
        for (Watched w : watched) {
            SharedIndexInformer<HasMetadata> i = w.informer();
            watches.put(w.kind(), !i.hasSynced() ? "listing" : i.isWatching() ? "watching" : "down");
        }
        crdMissing.forEach((kind, missing) -> {
            if (missing) watches.put(kind, "crd-missing");
        });
        watchingGauge.set(watching ? 1 : 0);
        syncState = new SyncState(watching, initialSynced ? lastHealthyMillis : 0, watches);
    }

    /** Periodic double check: the catalog's entries of this cluster equal the informer stores. */
    public void reconcile() {
        if (closed) return;
        onOwnThread(() -> {
            if (!closed && initialSynced) reconcileNow();
        });
    }

    public boolean isStale() {
        return stale;
    }

    @Override
    public void close() {
        closed = true;
        thread.execute(() -> {
            for (Watched w : watched) {
                try {
                    w.informer().stop();
                } catch (RuntimeException e) {
                    LOG.debugf("cluster %s: stopping %s informer: %s", cluster, w.kind(), e.getMessage());
                }
            }
            watched.clear();
            if (ownsClient) client.close();
        });
        thread.shutdown();
        metrics.clusterRemoved(cluster);
    }

    /** Waits until the watcher thread finished closing (tests and shutdown). */
    public void awaitClosed(Duration timeout) throws InterruptedException {
        thread.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    private ClusterStatus status() {
        return new ClusterStatus(cluster, local, stale, lastSyncMillis, List.of());
    }

    private long resyncMillis() {
        return options.resync().toMillis();
    }

    private void watchCustomResources() {
        nextCrdCheckMillis = System.currentTimeMillis() + options.crdRetry().toMillis();
        for (DiscoveryKind k : DiscoveryKinds.ALL) {
            if (!Boolean.TRUE.equals(crdMissing.get(k.kind()))) continue;
            for (String version : k.apiVersions()) {
                if (crdServed(version, k.kindName())) {
                    watch(k.kind(), version, informerOf(k, version));
                    crdMissing.put(k.kind(), false);
                    break;
                }
            }
        }
    }

    private Function<KubernetesClient, SharedIndexInformer<? extends HasMetadata>> informerOf(DiscoveryKind k, String version) {
        return c -> k.informer().create(c, version, resyncMillis());
    }

    private boolean crdServed(String apiVersion, String kind) {
        try {
            return client.supports(apiVersion, kind);
        } catch (RuntimeException e) {
            // Unreachable or forbidden: not an error, we look again after crd-retry-interval.
            LOG.debugf("cluster %s: cannot check for %s %s: %s", cluster, apiVersion, kind, e.getMessage());
            return false;
        }
    }

    /**
     * After a stale period we do not trust a watch resumed from an old resourceVersion (a restored
     * or replaced API server may accept it and never replay what changed): fresh informers list
     * everything again, and the reconcile after their sync removes what disappeared meanwhile.
     * Until then the catalog keeps the last known state.
     */
    private void restartInformers() {
        List<Watched> old = new ArrayList<>(watched);
        watched.clear();
        for (Watched w : old) {
            try {
                w.informer().stop();
            } catch (RuntimeException e) {
                LOG.debugf("cluster %s: stopping %s informer: %s", cluster, w.kind(), e.getMessage());
            }
            watch(w.kind(), w.apiVersion(), w.factory());
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void watch(Kind kind, String apiVersion, Function<KubernetesClient, ? extends SharedIndexInformer<? extends HasMetadata>> typedFactory) {
        Function<KubernetesClient, SharedIndexInformer<HasMetadata>> factory = (Function) typedFactory;
        SharedIndexInformer<HasMetadata> informer = factory.apply(client);
        // Typed Object, not HasMetadata: Quarkus's kubernetes-client extension registers the whole reflective
        // hierarchy of an informer handler's type argument for reflection, unconditionally; for HasMetadata that
        // took in the builders' *Fluent classes of the whole model (1,246, every method and field), which nothing
        // reads reflectively. The kinds' own classes are registered either way (NativeImageKubernetesModelTest).
        informer.addEventHandler(new ResourceEventHandler<Object>() {
            @Override
            public void onAdd(Object obj) {
                onOwnThread(() -> apply(kind, (HasMetadata) obj));
            }

            @Override
            public void onUpdate(Object oldObj, Object newObj) {
                onOwnThread(() -> apply(kind, (HasMetadata) newObj));
            }

            @Override
            public void onDelete(Object obj, boolean deletedFinalStateUnknown) {
                onOwnThread(() -> remove(kind, (HasMetadata) obj));
            }
        });
        // Keep retrying a failing list/watch forever: a remote cluster may come back at any time.
        informer.exceptionHandler((started, t) -> {
            LOG.debugf("cluster %s: %s informer: %s", cluster, kind, t.getMessage());
            return true;
        });
        informer.start().whenComplete((v, err) -> {
            if (err != null && !closed && informer.isRunning()) {
                LOG.warnf("cluster %s: %s (%s) informer failed: %s", cluster, kind, apiVersion, err.getMessage());
            }
        });
        watched.add(new Watched(kind, apiVersion, factory, informer));
        LOG.debugf("cluster %s: watching %s (%s)", cluster, kind, apiVersion);
    }

    private void onOwnThread(Runnable r) {
        try {
            thread.execute(r);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // Closed: a late informer callback has nothing to update any more.
        }
    }

    private void apply(Kind kind, HasMetadata obj) {
        if (closed) return;
        metrics.event(cluster, kind);
        Translation t = DiscoveryKinds.translate(cluster, obj);
        if (t instanceof Translation.Accepted a) {
            aggregator.upsert(a.entry());
        } else if (t instanceof Translation.Skipped s) {
            if (s.ref() != null) aggregator.delete(s.ref());
        } else if (t instanceof Translation.Rejected r) {
            // Never a delete: the last good entry stays until the object is fixed or deleted.
            metrics.rejected(cluster, kind);
            rejections.report(client, obj, r);
        }
    }

    private void remove(Kind kind, HasMetadata obj) {
        if (closed) return;
        metrics.event(cluster, kind);
        ObjectRef ref = DiscoveryKinds.refOf(cluster, obj);
        if (ref != null) aggregator.delete(ref);
    }

    private void reconcileNow() {
        for (Watched w : watched) {
            if (!w.informer().hasSynced()) continue;
            List<CatalogEntry> truth = new ArrayList<>();
            Set<ObjectRef> keep = new HashSet<>();
            for (HasMetadata obj : w.informer().getStore().list()) {
                Translation t = DiscoveryKinds.translate(cluster, obj);
                if (t instanceof Translation.Accepted a) {
                    truth.add(a.entry());
                } else if (t instanceof Translation.Rejected r) {
                    if (r.ref() != null) keep.add(r.ref());
                    rejections.report(client, obj, r);
                }
            }
            aggregator.reconcile(cluster, Set.of(w.kind()), truth, keep);
        }
    }
}
