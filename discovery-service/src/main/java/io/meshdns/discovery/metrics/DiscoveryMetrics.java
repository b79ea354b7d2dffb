package io.meshdns.discovery.metrics;

import io.meshdns.discovery.catalog.CatalogAggregator;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.ClusterStatus;
import io.meshdns.model.Kind;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@code meshdns_discovery_*} metrics. Catalog-derived gauges read the current catalog when
 * scraped, so the hot path only bumps counters.
 */
public final class DiscoveryMetrics {
    private final MeterRegistry registry;
    private final Map<String, Counter> events = new ConcurrentHashMap<>();
    private final Map<String, Counter> rejected = new ConcurrentHashMap<>();
    private final Map<String, Gauge> staleGauges = new ConcurrentHashMap<>();
    private final Map<String, Gauge> watchingGauges = new ConcurrentHashMap<>();
    private final AtomicInteger watchClients = new AtomicInteger();
    private final Counter watchCutOffs;

    public DiscoveryMetrics(MeterRegistry registry, CatalogAggregator aggregator) {
        this.registry = registry;
        Gauge.builder("meshdns.discovery.version", aggregator, a -> a.current().version())
                .description("Current catalog version").register(registry);
        for (Kind kind : Kind.values()) {
            Gauge.builder("meshdns.discovery.entries", aggregator, a -> count(a, kind))
                    .tag("kind", kind.name().toLowerCase(Locale.ROOT))
                    .description("Catalog entries by kind").register(registry);
        }
        Gauge.builder("meshdns.discovery.clusters", aggregator, a -> a.current().clusters().size())
                .description("Clusters known to discovery").register(registry);
        Gauge.builder("meshdns.discovery.stale.clusters", aggregator,
                        a -> a.current().clusters().stream().filter(ClusterStatus::stale).count())
                .description("Clusters whose last known state is older than meshdns.discovery.stale-after").register(registry);
        Gauge.builder("meshdns.discovery.watch.clients", watchClients, AtomicInteger::get)
                .description("Connected /v1/watch streams").register(registry);
        watchCutOffs = Counter.builder("meshdns.discovery.watch.cutoffs")
                .description("/v1/watch streams closed because they stayed behind longer than meshdns.discovery.watch.max-lag")
                .register(registry);
        Gauge.builder("meshdns.discovery.ready", aggregator, a -> a.isReady() ? 1 : 0)
                .description("1 once every source listed once (or the initial sync timed out)").register(registry);
    }

    private static double count(CatalogAggregator a, Kind kind) {
        // Scrape-time only; a scrape every few seconds over a 100k-entry map is cheap enough.
        long n = 0;
        for (CatalogEntry e : a.current().values()) {
            if (e.ref().kind() == kind) n++;
        }
        return n;
    }

    public void event(String cluster, Kind kind) {
        events.computeIfAbsent(cluster + "/" + kind, k -> Counter.builder("meshdns.discovery.events")
                .tag("cluster", cluster).tag("kind", kind.name().toLowerCase(Locale.ROOT))
                .description("Object events received from informers and files").register(registry)).increment();
    }

    public void rejected(String cluster, Kind kind) {
        rejected.computeIfAbsent(cluster + "/" + kind, k -> Counter.builder("meshdns.discovery.rejected")
                .tag("cluster", cluster).tag("kind", kind.name().toLowerCase(Locale.ROOT))
                .description("Malformed objects logged and skipped").register(registry)).increment();
    }

    /** Per-cluster 0/1 gauge {@code meshdns_discovery_cluster_stale{cluster}}. */
    public void clusterStale(String cluster, AtomicInteger stale) {
        staleGauges.computeIfAbsent(cluster, c -> Gauge.builder("meshdns.discovery.cluster.stale", stale, AtomicInteger::get)
                .tag("cluster", c).description("1 when the cluster is stale").register(registry));
    }

    /** Per-cluster 0/1 gauge {@code meshdns_discovery_cluster_watching{cluster}}. */
    public void clusterWatching(String cluster, AtomicInteger watching) {
        watchingGauges.computeIfAbsent(cluster, c -> Gauge.builder("meshdns.discovery.cluster.watching", watching, AtomicInteger::get)
                .tag("cluster", c).description("1 while every watch of the cluster is established").register(registry));
    }

    public void clusterRemoved(String cluster) {
        for (Map<String, Gauge> gauges : List.of(staleGauges, watchingGauges)) {
            Gauge g = gauges.remove(cluster);
            if (g != null) registry.remove(g);
        }
    }

    public AtomicInteger watchClients() {
        return watchClients;
    }

    public void watchCutOff() {
        watchCutOffs.increment();
    }


}
