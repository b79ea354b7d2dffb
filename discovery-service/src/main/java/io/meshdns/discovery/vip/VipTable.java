package io.meshdns.discovery.vip;

import org.jboss.logging.Logger;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The pure VIP allocation state: host → one VIP per configured range (typically one IPv4 and one IPv6).
 * No I/O; not thread-safe (its owner serialises access).
 *
 * <p>A host's first choice in each range is a hash of the host name; when that address is taken the
 * next free one is used (linear probing). So the allocation depends only on the host and on which
 * hosts came before it: even if the persisted table is lost, re-allocating the same hosts gives mostly
 * the same VIPs. An allocated VIP is kept until {@link #retainOnly} drops its host, and is never given
 * to another host while allocated.
 */
public final class VipTable {
    private static final Logger LOG = Logger.getLogger(VipTable.class);

    private final List<VipRange> ranges;
    private final Map<String, List<String>> byHost = new TreeMap<>();
    /** One "taken" map per range: address index → host. */
    private final List<Map<Long, String>> taken = new ArrayList<>();
    private long exhaustions;

    public VipTable(List<VipRange> ranges) {
        this.ranges = List.copyOf(ranges);
        for (int i = 0; i < ranges.size(); i++) taken.add(new HashMap<>());
    }

    /** Normalises a host the way the catalog keys it: lower case, no trailing dot. */
    public static String key(String host) {
        String h = host.toLowerCase(Locale.ROOT);
        return h.endsWith(".") ? h.substring(0, h.length() - 1) : h;
    }

    /** The VIPs {@code host} holds, allocating nothing (a follower's answer). */
    public List<String> lookup(String rawHost) {
        return byHost.getOrDefault(key(rawHost), List.of());
    }

    /**
     * Restores persisted allocations. An address outside every range (the ranges changed) or already
     * held by another host is dropped, and the host gets a fresh one at its next {@link #allocate}.
     */
    public void restore(Map<String, List<String>> persisted) {
        persisted.forEach((rawHost, ips) -> {
            String host = key(rawHost);
            List<String> kept = new ArrayList<>();
            for (String ip : ips) {
                for (int r = 0; r < ranges.size(); r++) {
                    long idx = ranges.get(r).indexOf(ip);
                    if (idx >= 0 && !taken.get(r).containsKey(idx) && !hasAddressIn(kept, r)) {
                        taken.get(r).put(idx, host);
                        kept.add(ranges.get(r).addressAt(idx));
                        break;
                    }
                }
            }
            if (!kept.isEmpty()) byHost.put(host, List.copyOf(kept));
        });
    }

    /**
     * The VIPs of {@code host}, allocating what is missing (one per range). A full range is skipped
     * with a warning: the host then has fewer VIPs (none at all if every range is full).
     */
    public List<String> allocate(String rawHost) {
        return allocate(rawHost, ip -> false);
    }

    /**
     * Like {@link #allocate(String)}, never choosing an address {@code held} says someone else holds (Istio's
     * own auto-allocation). A VIP of {@code host} that is now held is given up and replaced.
     */
    public List<String> allocate(String rawHost, java.util.function.Predicate<String> held) {
        String host = key(rawHost);
        List<String> have = byHost.get(host);
        if (have != null) {
            List<String> kept = new ArrayList<>();
            for (String ip : have) {
                if (!held.test(ip)) {
                    kept.add(ip);
                    continue;
                }
                LOG.warnf("VIP %s of ServiceEntry host %s is now held by Istio: allocating another", ip, host);
                for (int r = 0; r < ranges.size(); r++) {
                    long idx = ranges.get(r).indexOf(ip);
                    if (idx >= 0 && host.equals(taken.get(r).get(idx))) taken.get(r).remove(idx);
                }
            }
            if (kept.size() != have.size()) {
                have = kept.isEmpty() ? null : List.copyOf(kept);
                if (have == null) byHost.remove(host);
                else byHost.put(host, have);
            }
        }
        if (have != null && have.size() == ranges.size()) return have;
        List<String> out = new ArrayList<>(ranges.size());
        for (int r = 0; r < ranges.size(); r++) {
            String existing = have == null ? null : addressIn(have, r);
            if (existing != null) {
                out.add(existing);
                continue;
            }
            VipRange range = ranges.get(r);
            Map<Long, String> used = taken.get(r);
            if (used.size() >= range.size()) {
                exhaustions++;
                LOG.warnf("VIP range %s is exhausted (%d addresses): ServiceEntry host %s gets no VIP from it", range.cidr(), range.size(), host);
                continue;
            }
            long idx = Math.floorMod(hash(host, r), range.size());
            long probes = 0;
            while ((used.containsKey(idx) || held.test(range.addressAt(idx))) && probes < range.size()) {
                idx = (idx + 1) % range.size();
                probes++;
            }
            if (probes >= range.size()) {
                exhaustions++;
                LOG.warnf("VIP range %s has no address left that Istio does not hold: ServiceEntry host %s gets no VIP from it", range.cidr(), host);
                continue;
            }
            used.put(idx, host);
            out.add(range.addressAt(idx));
        }
        List<String> result = List.copyOf(out);
        if (!result.isEmpty()) byHost.put(host, result);
        return result;
    }

    /** Frees the VIPs of every host not in {@code liveHosts}; returns the freed hosts. */
    public Set<String> retainOnly(Collection<String> liveHosts) {
        Set<String> live = new java.util.HashSet<>();
        for (String h : liveHosts) live.add(key(h));
        Set<String> freed = new java.util.TreeSet<>();
        for (var it = byHost.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            if (live.contains(e.getKey())) continue;
            for (String ip : e.getValue()) {
                for (int r = 0; r < ranges.size(); r++) {
                    long idx = ranges.get(r).indexOf(ip);
                    if (idx >= 0 && e.getKey().equals(taken.get(r).get(idx))) taken.get(r).remove(idx);
                }
            }
            freed.add(e.getKey());
            it.remove();
        }
        return freed;
    }

    /** A copy of every allocation, sorted by host. */
    public Map<String, List<String>> allocations() {
        return new TreeMap<>(byHost);
    }

    /** Number of hosts holding VIPs. */
    public int size() {
        return byHost.size();
    }

    /** How often an allocation found a range full (for the metric and the tests). */
    public long exhaustions() {
        return exhaustions;
    }

    private String addressIn(List<String> ips, int r) {
        for (String ip : ips) if (ranges.get(r).indexOf(ip) >= 0) return ip;
        return null;
    }

    private boolean hasAddressIn(List<String> ips, int r) {
        return addressIn(ips, r) != null;
    }

    /** SHA-256 of "range-index/host": the same on every JVM, unlike String.hashCode's spread. */
    private static long hash(String host, int range) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest((range + "/" + host).getBytes(StandardCharsets.UTF_8));
            long v = 0;
            for (int i = 0; i < 8; i++) v = (v << 8) | (d[i] & 0xff);
            return v;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always present", e);
        }
    }
}
