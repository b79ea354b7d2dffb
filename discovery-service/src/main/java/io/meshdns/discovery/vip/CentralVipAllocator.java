package io.meshdns.discovery.vip;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshdns.discovery.catalog.CatalogAggregator;
import io.meshdns.discovery.config.DiscoveryConfig;
import io.meshdns.model.Catalog;
import io.meshdns.model.CatalogDelta;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.ClusterStatus;
import io.meshdns.model.Kind;
import io.meshdns.model.ObjectRef;
import io.quarkus.runtime.Startup;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.ObserverMethod;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

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
    Instance<io.micrometer.core.instrument.MeterRegistry> registries;

    private VipTable table;
    private List<VipRange> ranges = List.of();
    private VipStore store = VipStore.NONE;
    private final ScheduledExecutorService writer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "meshdns-vip-store");
        t.setDaemon(true);
        return t;
    });
    private final AtomicBoolean saveQueued = new AtomicBoolean();
    /** host -> when it was first seen absent from every ServiceEntry (guarded by this). */
    private final Map<String, Long> absentSince = new java.util.HashMap<>();
    private volatile Catalog latest;
    private VipSource source;
    /** Addresses Istio holds (status.addresses), per ServiceEntry; guarded by this. */
    private final Map<ObjectRef, Set<java.net.InetAddress>> istioHeldBy = new java.util.HashMap<>();
    /** How many ServiceEntries hold each Istio address; guarded by this. */
    private final Map<java.net.InetAddress, Integer> istioHeld = new java.util.HashMap<>();
    /**
     * Whether this replica allocates and writes. Without leader election always; with it, only while holding the
     * Lease: a follower answers the table it follows from the ConfigMap and allocates nothing.
     */
    private volatile boolean leading = true;
    private volatile VipLeadership leadership;
    private volatile io.fabric8.kubernetes.client.informers.SharedIndexInformer<?> following;
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
        VipStore chosen = chooseStore();
        KubernetesClient leaseClient = null;
        String ns = null;
        if (chosen instanceof ConfigMapVipStore) {
            leaseClient = localClient.get();
            ns = namespace(leaseClient);
        } else if (config.leaderElection().enabled().orElse(false)) {
            LOG.warnf("meshdns.discovery.leader-election.enabled=true ignored: the VIP table is in %s, not a ConfigMap, so there is one writer anyway",
                    chosen.describe());
        }
        if (registries != null && registries.isResolvable()) {
            io.micrometer.core.instrument.Gauge.builder("meshdns.discovery.vip.leader", this, a -> a.leading() ? 1 : 0)
                    .description("1 while this replica allocates and writes ServiceEntry VIPs (holds the Lease, or runs alone), else 0")
                    .register(registries.get());
        }
        start(chosen, leaseClient, ns);
    }

    /** Reads and checks the configuration (one line naming the key on a bad value). */
    void configure() {
        source = VipSource.parse(config.vipSource());
        List<VipRange> ranges = new ArrayList<>();
        for (String cidr : config.vipRanges()) {
            try {
                ranges.add(VipRange.parse(cidr));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("meshdns.discovery.vip-ranges: " + e.getMessage());
            }
        }
        table = new VipTable(ranges);
        this.ranges = List.copyOf(ranges);
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
        this.store = store;
        for (int attempt = 1; ; attempt++) {
            try {
                Map<String, List<String>> persisted = store.load();
                table.restore(persisted);
                LOG.infof("ServiceEntry VIPs from %s, persisted in %s: %d hosts restored", config.vipRanges(), store.describe(), persisted.size());
                break;
            } catch (IOException | RuntimeException e) {
                if (attempt < 3) {
                    LOG.warnf("cannot load the VIP table from %s (%s): retrying", store.describe(), e.getMessage());
                    sleepQuietly(1000);
                    continue;
                }
                // Not fatal: the hash-based first choice gives the same VIPs to the same hosts in most cases.
                LOG.warnf("cannot load the VIP table from %s (%s): allocating afresh", store.describe(), e.getMessage());
                break;
            }
        }
        if (leaseClient != null && store instanceof ConfigMapVipStore cm && config.leaderElection().enabled().orElse(true)) {
            leading = false;
            following = cm.follow(this::followed);
            VipLeadership l = new VipLeadership(leaseClient, namespace, config.leaderElection(), writer, this::gained, this::lost);
            leadership = l;
            l.start();
            try {
                // Build the first catalog version in the right role: leading, or following a leader we have seen.
                Duration wait = config.leaderElection().leaseDuration().plus(config.leaderElection().retryPeriod());
                if (!l.awaitFirstOutcome(wait)) LOG.warnf("no leader of %s seen within %s: following the ConfigMap meanwhile", l.describe(), wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        long every = Math.max(1000, config.vipReleaseDelay().toMillis() / 2);
        writer.scheduleWithFixedDelay(() -> {
            Catalog c = latest;
            if (c != null) sweep(c);
        }, every, every, TimeUnit.MILLISECONDS);
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether this replica allocates and writes now (the metric, status, tests). */
    public boolean leading() {
        return leading;
    }

    /** This replica's Lease identity, or empty without leader election (status). */
    public java.util.Optional<String> leaseIdentity() {
        VipLeadership l = leadership;
        return l == null ? java.util.Optional.empty() : java.util.Optional.of(l.identity());
    }

    /**
     * Runs (outside this allocator's lock) when the table changed under entries already in the catalog: the
     * catalog passes its ServiceEntries through {@link #vipsFor} again.
     */
    public void onTableChanged(Runnable action) {
        onTableChanged = action;
    }

    /** A follower takes the table the leader stored; the leader ignores its own writes coming back. */
    private void followed(Map<String, List<String>> stored) {
        synchronized (this) {
            if (leading) return;
            VipTable fresh = new VipTable(ranges);
            fresh.restore(stored);
            if (fresh.allocations().equals(table.allocations())) return;
            table = fresh;
        }
        onTableChanged.run();
    }

    /** Took the Lease: continue from the stored table (no VIP of an existing host changes), then allocate what is missing. */
    private void gained() {
        Map<String, List<String>> stored = null;
        try {
            stored = store.load();
        } catch (IOException | RuntimeException e) {
            LOG.warnf("cannot read %s on taking the Lease (%s): continuing from the followed table", store.describe(), e.getMessage());
        }
        synchronized (this) {
            if (stored != null) {
                VipTable fresh = new VipTable(ranges);
                fresh.restore(stored);
                table = fresh;
            }
            absentSince.clear();
            leading = true;
        }
        onTableChanged.run();
        scheduleSave();
    }

    private void lost() {
        leading = false;
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

    private VipStore chooseStore() {
        if (discoveryConfig.enabledLocalCluster() && localClient.isResolvable()) {
            KubernetesClient client = localClient.get();
            return new ConfigMapVipStore(client, namespace(client), config.vipConfigmap());
        }
        return config.vipFile().<VipStore>map(FileVipStore::new).orElseGet(() -> {
            LOG.warn("no local cluster and no meshdns.discovery.vip-file: the VIP table is not persisted");
            return VipStore.NONE;
        });
    }

    private String namespace(KubernetesClient client) {
        if (config.namespace().isPresent()) return config.namespace().get();
        Path sa = Path.of("/var/run/secrets/kubernetes.io/serviceaccount/namespace");
        try {
            if (Files.isReadable(sa)) return Files.readString(sa).trim();
        } catch (IOException ignored) {
            // fall through to the client's namespace
        }
        String ns = client.getNamespace();
        return ns == null || ns.isBlank() ? "default" : ns;
    }

    /**
     * The addresses to answer per host: with {@code istio-first}, Istio's {@code status.addresses} for a host
     * that has them, else ours; {@code own}: ours; {@code istio-only}: Istio's. Ours only for hosts that need
     * one ({@link #needsVips}) and never for an entry labelled {@code networking.istio.io/enable-autoallocate-ip:
     * "false"}; never an address any ServiceEntry's status says Istio holds.
     */
    @Override
    public Map<String, List<String>> vipsFor(CatalogEntry.ServiceEntry entry) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        boolean changed;
        synchronized (this) {
            holdIstio(entry.ref(), entry.statusAddresses());
            int before = table.size();
            Map<String, List<String>> allocationsBefore = table.allocations();
            for (String host : entry.hosts()) {
                List<String> istio = entry.statusAddresses().getOrDefault(VipTable.key(host), List.of());
                if (source != VipSource.OWN && !istio.isEmpty() && entry.addresses().isEmpty()) {
                    out.put(host, istio);
                    continue;
                }
                if (source == VipSource.ISTIO_ONLY || entry.autoAllocateOptOut() || !needsVips(entry)) continue;
                List<String> vips = leading ? table.allocate(host, this::heldByIstio) : table.lookup(host);
                if (!vips.isEmpty()) out.put(host, vips);
            }
            changed = table.size() != before || !table.allocations().equals(allocationsBefore);
        }
        if (changed) scheduleSave();
        return out;
    }

    /** Whether Istio holds {@code ip} for some ServiceEntry (caller holds this). */
    private boolean heldByIstio(String ip) {
        java.net.InetAddress a = literal(ip);
        return a != null && istioHeld.containsKey(a);
    }

    /** Records what {@code ref}'s status says Istio holds (empty: nothing any more). Caller holds this. */
    private void holdIstio(ObjectRef ref, Map<String, List<String>> status) {
        Set<java.net.InetAddress> now = new HashSet<>();
        status.values().forEach(ips -> ips.forEach(ip -> {
            java.net.InetAddress a = literal(ip);
            if (a != null) now.add(a);
        }));
        Set<java.net.InetAddress> before = now.isEmpty() ? istioHeldBy.remove(ref) : istioHeldBy.put(ref, now);
        if (before != null) for (java.net.InetAddress a : before) istioHeld.computeIfPresent(a, (k, n) -> n <= 1 ? null : n - 1);
        for (java.net.InetAddress a : now) istioHeld.merge(a, 1, Integer::sum);
    }

    /** An IP literal as an address (no name lookup: the translator admitted only literals); null otherwise. */
    private static java.net.InetAddress literal(String ip) {
        if (ip == null || !io.meshdns.discovery.translate.IpLiterals.isIp(ip)) return null;
        try {
            return java.net.InetAddress.getByName(ip);
        } catch (java.net.UnknownHostException e) {
            return null;
        }
    }

    /** Addresses Istio holds now (status, tests). */
    public synchronized Set<java.net.InetAddress> istioHeld() {
        return Set.copyOf(istioHeld.keySet());
    }

    static boolean needsVips(CatalogEntry.ServiceEntry e) {
        if (!e.addresses().isEmpty()) return false;
        boolean answersWithEndpoints = ("DNS".equalsIgnoreCase(e.resolution()) || "STATIC".equalsIgnoreCase(e.resolution())
                || "DNS_ROUND_ROBIN".equalsIgnoreCase(e.resolution())) && !e.endpointAddresses().isEmpty(); // the translator keeps only IP endpoints
        return !answersWithEndpoints;
    }

    @Override
    public void onVersion(CatalogDelta delta, Catalog catalog) {
        latest = catalog;
        synchronized (this) {
            for (ObjectRef r : delta.deletes()) {
                if (r.kind() == Kind.SERVICE_ENTRY) holdIstio(r, Map.of());
            }
        }
        if (touchesServiceEntries(delta)) sweep(catalog);
    }

    /**
     * Notes hosts absent from {@code catalog} and frees those absent for the release delay. Runs
     * after versions (catalog lock held) and periodically on the writer thread (for the delay).
     */
    private void sweep(Catalog catalog) {
        if (!leading) return; // the leader frees; a follower sees it in the ConfigMap
        for (ClusterStatus c : catalog.clusters()) {
            if (c.stale()) return; // its ServiceEntries may still exist: free nothing until it is back
        }
        Set<String> live = new HashSet<>();
        for (CatalogEntry e : catalog.entries().values()) {
            if (e instanceof CatalogEntry.ServiceEntry se && needsVips(se)) {
                for (String h : se.hosts()) live.add(VipTable.key(h));
            }
        }
        long now = System.currentTimeMillis();
        long delay = config.vipReleaseDelay().toMillis();
        Set<String> freed;
        synchronized (this) {
            Set<String> keep = new HashSet<>();
            for (String host : table.allocations().keySet()) {
                if (live.contains(host)) {
                    absentSince.remove(host);
                    keep.add(host);
                } else if (now - absentSince.computeIfAbsent(host, h -> now) < delay) {
                    keep.add(host);
                }
            }
            freed = table.retainOnly(keep);
            absentSince.keySet().removeAll(freed);
        }
        if (!freed.isEmpty()) {
            LOG.infof("freed the VIPs of ServiceEntry hosts gone from every cluster for %s: %s", config.vipReleaseDelay(), freed);
            scheduleSave();
        }
    }

    private static boolean touchesServiceEntries(CatalogDelta d) {
        if (d.clusters() != null) return true;
        for (ObjectRef r : d.deletes()) if (r.kind() == Kind.SERVICE_ENTRY) return true;
        for (CatalogEntry e : d.upserts()) if (e instanceof CatalogEntry.ServiceEntry) return true;
        return false;
    }

    /** Coalesces writes: one pending save writes the latest table. Retried every 5 s on failure. */
    private void scheduleSave() {
        if (saveQueued.compareAndSet(false, true)) writer.schedule(this::save, 100, TimeUnit.MILLISECONDS);
    }

    private void save() {
        saveQueued.set(false);
        Map<String, List<String>> snapshot;
        synchronized (this) {
            snapshot = table.allocations();
        }
        try {
            Map<String, List<String>> stored = store.saveMerging(snapshot);
            if (!stored.equals(snapshot)) adopt(stored);
        } catch (IOException | RuntimeException e) {
            LOG.warnf("cannot persist the VIP table to %s (%s): retrying in 5s", store.describe(), e.getMessage());
            if (saveQueued.compareAndSet(false, true)) writer.schedule(this::save, 5, TimeUnit.SECONDS);
        }
    }

    /**
     * Another replica stored allocations this one did not have: take its table as the truth (its
     * hosts and addresses win) and allocate again only the hosts it lacks, so two replicas never
     * keep the same address for different hosts.
     */
    private void adopt(Map<String, List<String>> stored) {
        List<String> moved = new ArrayList<>();
        synchronized (this) {
            VipTable fresh = new VipTable(ranges);
            fresh.restore(stored);
            table.allocations().forEach((host, vips) -> {
                List<String> now = fresh.allocate(host);
                if (!now.equals(vips)) moved.add(host + " " + vips + " -> " + now);
            });
            table = fresh;
        }
        LOG.infof("VIP table merged with another replica's writes in %s", store.describe());
        if (!moved.isEmpty()) {
            LOG.warnf("VIPs moved to keep one host per address across replicas: %s", moved);
            scheduleSave();
        }
    }

    /** The current table (status, tests). */
    public synchronized Map<String, List<String>> allocations() {
        return table.allocations();
    }
}
