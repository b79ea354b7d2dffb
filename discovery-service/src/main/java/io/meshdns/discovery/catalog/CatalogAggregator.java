package io.meshdns.discovery.catalog;

import io.meshdns.model.Catalog;
import io.meshdns.model.CatalogDelta;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.ClusterStatus;
import io.meshdns.model.Kind;
import io.meshdns.model.ObjectRef;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * Merges every source's changes into one versioned {@link Catalog}.
 *
 * <p>Sources call {@link #upsert}, {@link #delete}, {@link #reconcile} and the cluster methods from
 * any thread. Changes are collected per ref (a later change to the same ref replaces an earlier one)
 * and, one batch window after the first pending change, folded into a single new version by
 * {@link #flush()}. Only refs that really changed go into the delta, so an informer resync that
 * repeats known objects makes no version. Each version's delta is kept in a bounded history so a
 * client at version V can catch up with the deltas after V instead of a full snapshot.
 *
 * <p>Until every source registered with {@link #expectInitialSync} has reported its first full
 * list (or {@link #markReady()} is called on timeout), nothing is flushed: clients never see a
 * half-listed catalog that would make them drop records they still have.
 */
public final class CatalogAggregator {
    /** Called under the aggregator's lock, in version order: implementations must not block. */
    public interface Listener {
        void onVersion(CatalogDelta delta, Catalog catalog);
    }

    /** What a new watch client gets: the deltas to catch up (null means "send a full snapshot"). */
    public record Subscription(boolean ready, List<CatalogDelta> catchUp, Catalog current, Runnable cancel) {
    }

    private final long batchWindowMillis;
    private final int historySize;
    private final ScheduledExecutorService scheduler;

    private final Object lock = new Object();
    private Catalog current;
    private final Map<ObjectRef, Optional<CatalogEntry>> pending = new LinkedHashMap<>();
    private final TreeMap<String, ClusterStatus> clusters = new TreeMap<>();
    private final Map<String, GatewayHealthMark> gatewayHealth = new HashMap<>();
    private boolean clustersDirty;
    private final ArrayDeque<CatalogDelta> history = new ArrayDeque<>();
    private final Set<String> awaitingInitialSync = new HashSet<>();
    private boolean ready;
    private ScheduledFuture<?> scheduledFlush;
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    private volatile UnaryOperator<CatalogEntry> enricher = UnaryOperator.identity();

    /**
     * @param startVersion the version of the empty catalog. Production uses the wall clock in
     *                     milliseconds, so versions keep increasing across restarts (a batch
     *                     window of 1 ms or more never outruns the clock) and a client's version
     *                     from an earlier process is never mistaken for a current one.
     */
    public CatalogAggregator(long startVersion, long batchWindowMillis, int historySize, ScheduledExecutorService scheduler) {
        this.current = Catalog.of(new io.meshdns.model.CatalogSnapshot(io.meshdns.model.CatalogSnapshot.FORMAT_VERSION, startVersion, List.of(), List.of()));
        this.batchWindowMillis = batchWindowMillis;
        this.historySize = historySize;
        this.scheduler = scheduler;
    }

    /**
     * A step every entry passes before it is stored, e.g. the ServiceEntry VIP allocation.
     * It must be pure and fast: it runs under the catalog lock.
     */
    public void setEnricher(UnaryOperator<CatalogEntry> enricher) {
        this.enricher = enricher;
    }

    /**
     * Passes every entry through the enricher again, because what it adds changed underneath (a VIP table
     * followed from the leading replica, or taken over with the Lease); entries that change go out with the
     * next version.
     */
    public void reapplyEnricher() {
        synchronized (lock) {
            Map<ObjectRef, CatalogEntry> effective = new HashMap<>(current.entries());
            pending.forEach((ref, e) -> {
                if (e.isPresent()) effective.put(ref, e.get());
                else effective.remove(ref);
            });
            boolean any = false;
            for (CatalogEntry e : effective.values()) {
                CatalogEntry again = enricher.apply(e);
                if (!again.equals(e)) {
                    pending.put(again.ref(), Optional.of(again));
                    any = true;
                }
            }
            if (any) changed();
        }
    }

    public void upsert(CatalogEntry entry) {
        synchronized (lock) {
            // Under the lock, like reconcile: an allocation made here is always in the catalog before
            // the next version's listeners decide which allocations are unused.
            entry = enricher.apply(entry);
            pending.put(entry.ref(), Optional.of(entry));
            changed();
        }
    }

    public void delete(ObjectRef ref) {
        synchronized (lock) {
            pending.put(ref, Optional.empty());
            changed();
        }
    }

    /**
     * Makes the {@code kinds} of {@code cluster} equal to {@code truth}: the result of a full
     * (re)list. Refs in {@code keep} (objects whose current version was rejected as malformed)
     * keep their last good entry.
     */
    public void reconcile(String cluster, Set<Kind> kinds, Collection<CatalogEntry> truth, Set<ObjectRef> keep) {
        synchronized (lock) {
            Set<ObjectRef> wanted = new HashSet<>();
            for (CatalogEntry raw : truth) {
                CatalogEntry e = enricher.apply(raw);
                wanted.add(e.ref());
                if (!Objects.equals(effective(e.ref()), e)) {
                    pending.put(e.ref(), Optional.of(e));
                }
            }
            for (ObjectRef ref : effectiveRefs(cluster, kinds)) {
                if (!wanted.contains(ref) && !keep.contains(ref)) {
                    pending.put(ref, Optional.empty());
                }
            }
            changed();
        }
    }

    /** Adds or updates a cluster's status; it goes out with the next version when it changed. */
    public void updateCluster(ClusterStatus status) {
        synchronized (lock) {
            if (!status.equals(clusters.get(status.name()))) {
                clusters.put(status.name(), status);
                clustersDirty = true;
                changed();
            }
        }
    }

    /**
     * The gateway probes' verdict on a cluster's data plane, merged into its status (the watchers and manifests
     * that report the status know nothing of it); it goes out with the next version when it changed.
     */
    public void updateGatewayHealth(String cluster, boolean healthy, long sinceEpochMillis) {
        synchronized (lock) {
            GatewayHealthMark mark = new GatewayHealthMark(healthy, sinceEpochMillis);
            if (!mark.equals(gatewayHealth.put(cluster, mark))) {
                clustersDirty = true;
                changed();
            }
        }
    }

    private record GatewayHealthMark(boolean healthy, long since) {
    }

    /** The statuses as they go out: each with its gateway's health, when probed. Caller holds the lock. */
    private List<ClusterStatus> clusterStatuses() {
        List<ClusterStatus> out = new ArrayList<>(clusters.size());
        for (ClusterStatus c : clusters.values()) {
            GatewayHealthMark m = gatewayHealth.get(c.name());
            out.add(m == null ? c : c.withGatewayHealth(m.healthy(), m.since()));
        }
        return List.copyOf(out);
    }

    /** A cluster removed from the configuration: its status and every entry of it go away. */
    public void removeCluster(String cluster) {
        synchronized (lock) {
            if (clusters.remove(cluster) != null) clustersDirty = true;
            for (ObjectRef ref : effectiveRefs(cluster, null)) {
                pending.put(ref, Optional.empty());
            }
            changed();
        }
    }

    public void expectInitialSync(String sourceId) {
        synchronized (lock) {
            if (!ready) awaitingInitialSync.add(sourceId);
        }
    }

    public void initialSyncDone(String sourceId) {
        synchronized (lock) {
            awaitingInitialSync.remove(sourceId);
            if (!ready && awaitingInitialSync.isEmpty()) {
                ready = true;
                changed();
            }
        }
    }

    /** Serve even though some source has not listed yet (the initial-sync timeout). */
    public void markReady() {
        synchronized (lock) {
            if (!ready) {
                ready = true;
                awaitingInitialSync.clear();
                changed();
            }
        }
    }

    public boolean isReady() {
        synchronized (lock) {
            return ready;
        }
    }

    public Set<String> awaitingInitialSync() {
        synchronized (lock) {
            return Set.copyOf(awaitingInitialSync);
        }
    }

    public Catalog current() {
        synchronized (lock) {
            return current;
        }
    }

    /** The deltas after {@code version}, in order; empty when it is current; null when unknown or too old. */
    public List<CatalogDelta> deltasSince(long version) {
        synchronized (lock) {
            return deltasSinceLocked(version);
        }
    }

    public void addListener(Listener l) {
        listeners.add(l);
    }

    public void removeListener(Listener l) {
        listeners.remove(l);
    }

    /**
     * Registers {@code listener} and returns, atomically with it, what the client needs to catch up
     * from {@code since} (negative: it has nothing). No version can fall between the two.
     */
    public Subscription subscribe(long since, Listener listener) {
        synchronized (lock) {
            listeners.add(listener);
            List<CatalogDelta> catchUp = ready && since >= 0 ? deltasSinceLocked(since) : null;
            return new Subscription(ready, catchUp, current, () -> listeners.remove(listener));
        }
    }

    /** Folds the pending changes into a new version, if any changed something. Returns the delta or null. */
    public CatalogDelta flush() {
        synchronized (lock) {
            scheduledFlush = null;
            if (!ready) return null;
            List<CatalogEntry> upserts = new ArrayList<>();
            List<ObjectRef> deletes = new ArrayList<>();
            for (Map.Entry<ObjectRef, Optional<CatalogEntry>> e : pending.entrySet()) {
                CatalogEntry old = current.get(e.getKey());
                if (e.getValue().isPresent()) {
                    if (!e.getValue().get().equals(old)) upserts.add(e.getValue().get());
                } else if (old != null) {
                    deletes.add(e.getKey());
                }
            }
            pending.clear();
            List<ClusterStatus> clusterList = clustersDirty ? clusterStatuses() : null;
            clustersDirty = false;
            if (clusterList != null && clusterList.equals(current.clusters())) clusterList = null;
            // The first version after ready is made even when empty: clients waiting for readiness need a version to start from.
            boolean firstVersion = history.isEmpty();
            if (upserts.isEmpty() && deletes.isEmpty() && clusterList == null && !firstVersion) return null;
            upserts.sort((a, b) -> a.ref().compareTo(b.ref()));
            deletes.sort(null);
            CatalogDelta delta = new CatalogDelta(current.version(), current.version() + 1, clusterList, upserts, deletes);
            current = current.apply(delta);
            history.addLast(delta);
            while (history.size() > historySize) history.removeFirst();
            for (Listener l : listeners) {
                l.onVersion(delta, current);
            }
            return delta;
        }
    }

    private void changed() {
        if (scheduledFlush == null && ready && scheduler != null) {
            // A fixed window from the first change, not a sliding one: a steady stream of events
            // still produces a version every window instead of starving the clients.
            scheduledFlush = scheduler.schedule(this::flush, batchWindowMillis, TimeUnit.MILLISECONDS);
        }
    }

    private List<CatalogDelta> deltasSinceLocked(long version) {
        if (version == current.version()) return List.of();
        if (version > current.version() || history.isEmpty() || version < history.peekFirst().fromVersion()) return null;
        List<CatalogDelta> out = new ArrayList<>();
        boolean found = false;
        for (CatalogDelta d : history) {
            if (d.fromVersion() == version) found = true;
            if (found) out.add(d);
        }
        return found ? out : null;
    }

    private CatalogEntry effective(ObjectRef ref) {
        Optional<CatalogEntry> p = pending.get(ref);
        if (p != null) return p.orElse(null);
        return current.get(ref);
    }

    /** Refs of {@code cluster} (and {@code kinds}, null = all) as they will be after the pending changes. */
    private Set<ObjectRef> effectiveRefs(String cluster, Set<Kind> kinds) {
        Set<ObjectRef> out = new HashSet<>();
        for (ObjectRef ref : current.entries().keySet()) {
            if (ref.cluster().equals(cluster) && (kinds == null || kinds.contains(ref.kind()))) out.add(ref);
        }
        for (Map.Entry<ObjectRef, Optional<CatalogEntry>> e : pending.entrySet()) {
            ObjectRef ref = e.getKey();
            if (!ref.cluster().equals(cluster) || (kinds != null && !kinds.contains(ref.kind()))) continue;
            if (e.getValue().isPresent()) out.add(ref);
            else out.remove(ref);
        }
        return out;
    }
}
