package io.meshdns.discovery.vip;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.meshdns.discovery.catalog.CatalogAggregator;
import io.meshdns.discovery.config.DiscoveryConfig;
import io.meshdns.model.Catalog;
import io.meshdns.model.CatalogDelta;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.Kind;
import io.meshdns.model.ObjectRef;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.ObserverMethod;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Discovery's one VIP allocator: every node gets its VIPs from the catalog, so they are identical
 * everywhere. It loads the persisted table at start, allocates while entries enter the catalog
 * ({@link #vipsFor}, under the catalog lock), frees hosts gone from every ServiceEntry after each
 * version ({@link #onVersion}) and writes the table back on its own thread.
 *
 * <p>Which hosts get a VIP: every host of a ServiceEntry without {@code addresses}, unless the entry
 * answers with IP endpoints itself (resolution DNS/STATIC with IP endpoints). A wildcard host gets one
 * VIP that every name under it answers: the sidecar routes by the name it was asked for (Istio's
 * DYNAMIC_DNS), so the address only has to reach the sidecar, and a call to {@code api.wild.example}
 * must not die at DNS.
 *
 * <p>Nothing is freed while a cluster is stale (its ServiceEntries may still exist, we just cannot
 * see them), nor before a host has been absent for {@code meshdns.discovery.vip-release-delay}.
 *
 * <p>It reads as three parts: who leads ({@link VipLeadership}, the Lease, when the table is a ConfigMap), what is
 * allocated ({@link VipAllocations}: the table and its rules, no I/O) and where it is stored ({@link VipPersistence}).
 * This bean joins them and is the seam the catalog calls.
 *
 * <p>Created at start, on the main thread and before {@code ClusterManager} starts the informers: created
 * lazily, its first call came from {@code CatalogAggregator.flush} under the catalog lock, so the table's
 * load (a ConfigMap GET on the Vert.x-based client) ran while HTTP handlers on the event loop waited for
 * that lock, and the GET's answer waited for the event loop: the first version stalled for the client's
 * timeouts (3 x ~15 s at 10k services, bench/discovery).
 */
@Startup(ObserverMethod.DEFAULT_PRIORITY - 1)
@ApplicationScoped
public class CentralVipAllocator implements VipAllocator, CatalogAggregator.Listener {
    private static final Logger LOG = Logger.getLogger(CentralVipAllocator.class);

    @Inject
    VipConfig config;
    @Inject
    DiscoveryConfig discoveryConfig;
    @Inject
    Instance<KubernetesClient> localClient;
    @Inject
    Instance<MeterRegistry> registries;

    private VipAllocations allocations;
    private VipPersistence persistence;
    /** The allocator's one background thread: saves, sweeps, standing for the Lease again. */
    private final ScheduledExecutorService writer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "meshdns-vip-store");
        t.setDaemon(true);
        return t;
    });
    private volatile Catalog latest;
    private volatile VipLeadership leadership;
    private volatile SharedIndexInformer<?> following;
    private volatile Runnable onTableChanged = () -> { };

    /** {@code meshdns.discovery.vip-source}. */
    public enum VipSource {
        ISTIO_FIRST, OWN, ISTIO_ONLY;

        static VipSource parse(String text) {
            String normal = text == null ? "" : text.trim().toUpperCase(java.util.Locale.ROOT).replace('-', '_');
            for (VipSource v : values()) if (v.name().equals(normal)) return v;
            throw new IllegalArgumentException("meshdns.discovery.vip-source: '" + text + "' is not one of [istio-first, own, istio-only]");
        }
    }

    @PostConstruct
    void init() {
        configure();
        KubernetesClient local = discoveryConfig.enabledLocalCluster() && localClient.isResolvable() ? localClient.get() : null;
        VipStore chosen = VipPersistence.choose(config, local);
        KubernetesClient leaseClient = null;
        String ns = null;
        if (chosen instanceof ConfigMapVipStore) {
            leaseClient = localClient.get();
            ns = VipPersistence.namespace(config, leaseClient);
        } else if (config.leaderElection().enabled().orElse(false)) {
            LOG.warnf("meshdns.discovery.leader-election.enabled=true ignored: the VIP table is in %s, not a ConfigMap, so there is one writer anyway",
                    chosen.describe());
        }
        if (registries != null && registries.isResolvable()) {
            Gauge.builder("meshdns.discovery.vip.leader", this, a -> a.leading() ? 1 : 0)
                    .description("1 while this replica allocates and writes ServiceEntry VIPs (holds the Lease, or runs alone), else 0")
                    .register(registries.get());
        }
        start(chosen, leaseClient, ns);
    }

    /** Reads and checks the configuration (one line naming the key on a bad value). */
    void configure() {
        VipSource source = VipSource.parse(config.vipSource());
        List<VipRange> ranges = new ArrayList<>();
        for (String cidr : config.vipRanges()) {
            try {
                ranges.add(VipRange.parse(cidr));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("meshdns.discovery.vip-ranges: " + e.getMessage());
            }
        }
        allocations = new VipAllocations(ranges, source);
        if (config.vipReleaseDelay().isNegative()) {
            throw new IllegalArgumentException("meshdns.discovery.vip-release-delay must not be negative");
        }
        VipLeadership.validate(config.leaderElection());
    }

    /**
     * Loads the table from {@code store} and, when {@code leaseClient} is set and leader election is on (the
     * default with a ConfigMap), stands for the Lease in {@code namespace} and follows the ConfigMap meanwhile.
     */
    void start(VipStore store, KubernetesClient leaseClient, String namespace) {
        persistence = new VipPersistence(store, allocations, writer);
        persistence.restore(config.vipRanges());
        if (leaseClient != null && store instanceof ConfigMapVipStore cm && config.leaderElection().enabled().orElse(true)) {
            allocations.follow();
            following = cm.follow(this::followed);
            VipLeadership l = new VipLeadership(leaseClient, namespace, config.leaderElection(), writer, this::gained, allocations::follow);
            leadership = l;
            l.standAndAwaitRole();
        }
        long every = Math.max(1000, config.vipReleaseDelay().toMillis() / 2);
        writer.scheduleWithFixedDelay(() -> {
            Catalog c = latest;
            if (c != null) sweep(c);
        }, every, every, TimeUnit.MILLISECONDS);
    }

    /** Whether this replica allocates and writes now (the metric, status, tests). */
    public boolean leading() {
        return allocations.allocating();
    }

    /** This replica's Lease identity, or empty without leader election (status). */
    public Optional<String> leaseIdentity() {
        VipLeadership l = leadership;
        return l == null ? Optional.empty() : Optional.of(l.identity());
    }

    /**
     * Runs (outside the allocations' lock) when the table changed under entries already in the catalog: the
     * catalog passes its ServiceEntries through {@link #vipsFor} again.
     */
    public void onTableChanged(Runnable action) {
        onTableChanged = action;
    }

    /** A follower takes the table the leader stored; the leader ignores its own writes coming back. */
    private void followed(Map<String, List<String>> stored) {
        if (allocations.followed(stored)) onTableChanged.run();
    }

    /** Took the Lease: continue from the stored table (no VIP of an existing host changes), then allocate what is missing. */
    private void gained() {
        allocations.lead(persistence.loadOrNull());
        onTableChanged.run();
        persistence.scheduleSave();
    }

    @PreDestroy
    void close() {
        VipLeadership l = leadership;
        if (l != null) l.close();
        var f = following;
        if (f != null) f.close();
        writer.shutdown();
        try {
            writer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The addresses to answer per host ({@link VipAllocations#vipsFor}); a changed table is saved. */
    @Override
    public Map<String, List<String>> vipsFor(CatalogEntry.ServiceEntry entry) {
        VipAllocations.Answer answer = allocations.vipsFor(entry);
        if (answer.tableChanged()) persistence.scheduleSave();
        return answer.vips();
    }

    /** Addresses Istio holds now (status, tests). */
    public Set<InetAddress> istioHeld() {
        return allocations.istioHeld();
    }

    @Override
    public void onVersion(CatalogDelta delta, Catalog catalog) {
        latest = catalog;
        for (ObjectRef r : delta.deletes()) {
            if (r.kind() == Kind.SERVICE_ENTRY) allocations.forget(r);
        }
        if (touchesServiceEntries(delta)) sweep(catalog);
    }

    /**
     * Frees the VIPs of hosts absent for the release delay. Runs after versions (catalog lock held) and
     * periodically on the writer thread (for the delay).
     */
    private void sweep(Catalog catalog) {
        Set<String> freed = allocations.release(catalog, System.currentTimeMillis(), config.vipReleaseDelay().toMillis());
        if (!freed.isEmpty()) {
            LOG.infof("freed the VIPs of ServiceEntry hosts gone from every cluster for %s: %s", config.vipReleaseDelay(), freed);
            persistence.scheduleSave();
        }
    }

    private static boolean touchesServiceEntries(CatalogDelta d) {
        if (d.clusters() != null) return true;
        for (ObjectRef r : d.deletes()) if (r.kind() == Kind.SERVICE_ENTRY) return true;
        for (CatalogEntry e : d.upserts()) if (e instanceof CatalogEntry.ServiceEntry) return true;
        return false;
    }

    /** The current table (status, tests). */
    public Map<String, List<String>> allocations() {
        return allocations.allocations();
    }
}
