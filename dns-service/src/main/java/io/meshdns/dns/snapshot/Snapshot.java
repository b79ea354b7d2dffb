package io.meshdns.dns.snapshot;

import org.jboss.logging.Logger;
import org.xbill.DNS.Name;
import org.xbill.DNS.RRset;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.Type;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One immutable, consistent view of all authoritative data: the zones (found by longest matching
 * origin) and the non-authoritative overlay (hosts files), each compiled into a lookup index.
 * Built off the query path by {@link SnapshotStore} and swapped atomically; readers never lock.
 */
public final class Snapshot {
    private static final Logger LOG = Logger.getLogger(Snapshot.class);

    private final long version;
    private final Map<Name, ZoneIndex> zones;
    private final int minOriginLabels;
    private final int maxOriginLabels;
    private final Map<Name, Node> overlay;

    private Snapshot(long version, Map<Name, ZoneIndex> zones, Map<Name, Node> overlay) {
        this.version = version;
        this.zones = zones;
        this.overlay = overlay;
        int min = Integer.MAX_VALUE;
        int max = 0;
        for (Name origin : zones.keySet()) {
            min = Math.min(min, origin.labels());
            max = Math.max(max, origin.labels());
        }
        this.minOriginLabels = zones.isEmpty() ? 0 : min;
        this.maxOriginLabels = max;
    }

    public static Snapshot empty() {
        return new Snapshot(0, Map.of(), Map.of());
    }

    public long version() {
        return version;
    }

    public Collection<ZoneIndex> zones() {
        return zones.values();
    }

    /** The zone with the longest origin that is {@code name} or an ancestor of it; null if none. */
    public ZoneIndex findZone(Name name) {
        if (zones.isEmpty()) {
            return null;
        }
        int labels = name.labels();
        for (int keep = Math.min(labels, maxOriginLabels); keep >= minOriginLabels; keep--) {
            Name candidate = keep == labels ? name : new Name(name, labels - keep);
            ZoneIndex zone = zones.get(candidate);
            if (zone != null) {
                return zone;
            }
        }
        return null;
    }

    /** Non-authoritative data (hosts files) for exactly {@code name}; null if none. */
    public Node overlayNode(Name name) {
        return overlay.get(name);
    }

    /**
     * Compiles a snapshot from every source's content. Authoritative content for the same origin
     * is merged (the first SOA wins); records outside their zone's origin are skipped with a warning.
     */
    public static Snapshot build(long version, Collection<ZoneContent> contents) {
        Map<Name, List<Record>> zoneRecords = new LinkedHashMap<>();
        Map<Name, SOARecord> soas = new HashMap<>();
        List<Record> overlayRecords = new ArrayList<>();
        for (ZoneContent content : contents) {
            if (!content.authoritative()) {
                overlayRecords.addAll(content.records());
                continue;
            }
            List<Record> target = zoneRecords.computeIfAbsent(content.origin(), o -> new ArrayList<>());
            for (Record r : content.records()) {
                if (!r.getName().subdomain(content.origin())) {
                    LOG.warnf("zone %s: skipping out-of-zone record %s", content.origin(), r);
                    continue;
                }
                if (r.getType() == Type.SOA) {
                    if (r.getName().equals(content.origin())) {
                        soas.putIfAbsent(content.origin(), (SOARecord) r);
                    }
                    continue;
                }
                target.add(r);
            }
        }
        Map<Name, ZoneIndex> zones = new HashMap<>();
        for (Map.Entry<Name, List<Record>> e : zoneRecords.entrySet()) {
            SOARecord soa = soas.get(e.getKey());
            if (soa == null) {
                LOG.errorf("zone %s has no SOA at its apex: not served", e.getKey());
                continue;
            }
            List<Record> records = new ArrayList<>(e.getValue());
            records.add(soa);
            zones.put(e.getKey(), compileZone(e.getKey(), soa, records));
        }
        return new Snapshot(version, Map.copyOf(zones), Map.copyOf(compileNodes(null, overlayRecords)));
    }

    private static ZoneIndex compileZone(Name origin, SOARecord soa, List<Record> records) {
        Map<Name, Node> nodes = compileNodes(origin, records);
        boolean wildcards = false;
        boolean delegations = false;
        for (Node node : nodes.values()) {
            wildcards |= node.owner().isWild();
            delegations |= !node.owner().equals(origin) && node.get(Type.NS) != null;
        }
        return new ZoneIndex(origin, soa, Map.copyOf(nodes), wildcards, delegations);
    }

    /** Groups records into RRsets per owner; with an origin, adds the empty non-terminals up to it. */
    private static Map<Name, Node> compileNodes(Name origin, List<Record> records) {
        Map<Name, Map<Integer, RRset>> byOwner = new LinkedHashMap<>();
        for (Record r : records) {
            Map<Integer, RRset> sets = byOwner.computeIfAbsent(r.getName(), n -> new HashMap<>());
            RRset set = sets.get(r.getType());
            if (set == null) {
                sets.put(r.getType(), new RRset(r));
            } else {
                set.addRR(r); // dnsjava drops duplicates and aligns the RRset TTL to the lowest
            }
        }
        if (origin != null) {
            for (Name owner : List.copyOf(byOwner.keySet())) {
                for (int strip = 1; owner.labels() - strip > origin.labels(); strip++) {
                    byOwner.putIfAbsent(new Name(owner, strip), new HashMap<>());
                }
            }
        }
        Map<Name, Node> nodes = new HashMap<>();
        byOwner.forEach((name, sets) -> nodes.put(name, new Node(name, sets)));
        return nodes;
    }
}
