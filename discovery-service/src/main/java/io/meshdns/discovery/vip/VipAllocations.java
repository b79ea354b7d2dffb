package io.meshdns.discovery.vip;

import io.meshdns.model.Catalog;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.ClusterStatus;
import io.meshdns.model.ObjectRef;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What is allocated: the VIP table, which hosts get VIPs and whose they are (Istio's status or ours), and when an
 * absent host's VIPs are freed. Thread-safe (one lock), no I/O: {@link VipPersistence} stores the table,
 * {@link VipLeadership} says who allocates.
 *
 * <p>Whether this replica allocates is kept here, under the table's lock, rather than with the Lease: taking the
 * Lease swaps in the stored table and starts allocating in one step, so a follower's update arriving at that moment
 * cannot put an older table back under a replica that already allocates.
 */
final class VipAllocations {
    private final List<VipRange> ranges;
    private final CentralVipAllocator.VipSource source;
    private final IstioHeldAddresses istio = new IstioHeldAddresses();
    /** host -> when it was first seen absent from every ServiceEntry. */
    private final Map<String, Long> absentSince = new HashMap<>();
    private VipTable table;
    /** Without leader election always; with it, only while holding the Lease (a follower looks up, never allocates). */
    private volatile boolean allocating = true;

    /** The addresses for one entry's hosts, and whether the table changed (then it is to be saved). */
    record Answer(Map<String, List<String>> vips, boolean tableChanged) {
    }

    VipAllocations(List<VipRange> ranges, CentralVipAllocator.VipSource source) {
        this.ranges = List.copyOf(ranges);
        this.source = source;
        this.table = new VipTable(this.ranges);
    }

    /**
     * The addresses to answer per host: with {@code istio-first}, Istio's {@code status.addresses} for a host
     * that has them, else ours; {@code own}: ours; {@code istio-only}: Istio's. Ours only for hosts that need
     * one ({@link #needsVips}) and never for an entry labelled {@code networking.istio.io/enable-autoallocate-ip:
     * "false"}; never an address any ServiceEntry's status says Istio holds.
     */
    synchronized Answer vipsFor(CatalogEntry.ServiceEntry entry) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        istio.hold(entry.ref(), entry.statusAddresses());
        int before = table.size();
        Map<String, List<String>> allocationsBefore = table.allocations();
        for (String host : entry.hosts()) {
            List<String> istioAddresses = entry.statusAddresses().getOrDefault(VipTable.key(host), List.of());
            if (source != CentralVipAllocator.VipSource.OWN && !istioAddresses.isEmpty() && entry.addresses().isEmpty()) {
                out.put(host, istioAddresses);
                continue;
            }
            if (source == CentralVipAllocator.VipSource.ISTIO_ONLY || entry.autoAllocateOptOut() || !needsVips(entry)) continue;
            List<String> vips = allocating ? table.allocate(host, istio::holds) : table.lookup(host);
            if (!vips.isEmpty()) out.put(host, vips);
        }
        boolean changed = table.size() != before || !table.allocations().equals(allocationsBefore);
        return new Answer(out, changed);
    }

    static boolean needsVips(CatalogEntry.ServiceEntry e) {
        if (!e.addresses().isEmpty()) return false;
        boolean answersWithEndpoints = ("DNS".equalsIgnoreCase(e.resolution()) || "STATIC".equalsIgnoreCase(e.resolution())
                || "DNS_ROUND_ROBIN".equalsIgnoreCase(e.resolution())) && !e.endpointAddresses().isEmpty(); // the translator keeps only IP endpoints
        return !answersWithEndpoints;
    }

    /** A ServiceEntry left the catalog: the addresses its status held are Istio's no more. */
    synchronized void forget(ObjectRef serviceEntry) {
        istio.hold(serviceEntry, Map.of());
    }

    /**
     * Notes hosts absent from {@code catalog} and frees those absent for {@code delayMillis}; returns the freed
     * hosts. Only while allocating (a follower sees the leader's frees in the store), and nothing while a cluster
     * is stale (its ServiceEntries may still exist, we just cannot see them).
     */
    Set<String> release(Catalog catalog, long now, long delayMillis) {
        if (!allocating) return Set.of();
        for (ClusterStatus c : catalog.clusters()) {
            if (c.stale()) return Set.of();
        }
        Set<String> live = new HashSet<>();
        for (CatalogEntry e : catalog.entries().values()) {
            if (e instanceof CatalogEntry.ServiceEntry se && needsVips(se)) {
                for (String h : se.hosts()) live.add(VipTable.key(h));
            }
        }
        synchronized (this) {
            Set<String> keep = new HashSet<>();
            for (String host : table.allocations().keySet()) {
                if (live.contains(host)) {
                    absentSince.remove(host);
                    keep.add(host);
                } else if (now - absentSince.computeIfAbsent(host, h -> now) < delayMillis) {
                    keep.add(host);
                }
            }
            Set<String> freed = table.retainOnly(keep);
            absentSince.keySet().removeAll(freed);
            return freed;
        }
    }

    /** The table stored before this process started. */
    synchronized void restore(Map<String, List<String>> stored) {
        table.restore(stored);
    }

    /** Looks up only, from now on: another replica allocates. */
    void follow() {
        allocating = false;
    }

    /** A follower takes the table the leader stored; false when it allocates itself or nothing changed. */
    synchronized boolean followed(Map<String, List<String>> stored) {
        if (allocating) return false; // the leader ignores its own writes coming back
        VipTable fresh = restored(stored);
        if (fresh.allocations().equals(table.allocations())) return false;
        table = fresh;
        return true;
    }

    /**
     * Allocates from now on, continuing from {@code stored} (null: from the followed table), so that no VIP of an
     * existing host changes.
     */
    synchronized void lead(Map<String, List<String>> stored) {
        if (stored != null) table = restored(stored);
        absentSince.clear();
        allocating = true;
    }

    /**
     * Another replica stored allocations this one did not have: take its table as the truth (its hosts and
     * addresses win) and allocate again only the hosts it lacks, so two replicas never keep the same address
     * for different hosts. Returns the hosts whose VIPs moved, as log lines.
     */
    synchronized List<String> adopt(Map<String, List<String>> stored) {
        List<String> moved = new ArrayList<>();
        VipTable fresh = restored(stored);
        table.allocations().forEach((host, vips) -> {
            List<String> now = fresh.allocate(host);
            if (!now.equals(vips)) moved.add(host + " " + vips + " -> " + now);
        });
        table = fresh;
        return moved;
    }

    private VipTable restored(Map<String, List<String>> stored) {
        VipTable fresh = new VipTable(ranges);
        fresh.restore(stored);
        return fresh;
    }

    boolean allocating() {
        return allocating;
    }

    synchronized Map<String, List<String>> allocations() {
        return table.allocations();
    }

    synchronized Set<InetAddress> istioHeld() {
        return istio.all();
    }
}
