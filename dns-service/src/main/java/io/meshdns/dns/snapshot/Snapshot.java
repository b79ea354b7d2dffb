package io.meshdns.dns.snapshot;

import io.meshdns.model.ShardedMap;
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
 *
 * <p>It also carries the {@link MeshIndex} compiled with the mesh zones it holds, so the answer-time
 * mesh policies (placeholder, exportTo, autopath, wildcard hosts) read the index of exactly these
 * records: both are published in the one swap, and a query reads the store once.
 */
public final class Snapshot {
    private static final Logger LOG = Logger.getLogger(Snapshot.class);
    private static final Snapshot EMPTY = new Snapshot(0, Map.of(), ShardedMap.empty(), MeshIndex.EMPTY);

    private final long version;
    private final Map<Name, ZoneIndex> zones;
    private final int minOriginLabels;
    private final int maxOriginLabels;
    private final ShardedMap<Name, Node> overlay;
    private final MeshIndex mesh;

    private Snapshot(long version, Map<Name, ZoneIndex> zones, ShardedMap<Name, Node> overlay, MeshIndex mesh) {
        this.version = version;
        this.zones = zones;
        this.overlay = overlay;
        this.mesh = mesh;
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
        return EMPTY;
    }

    public long version() {
        return version;
    }

    /** The mesh index compiled with this snapshot's mesh zones; {@link MeshIndex#EMPTY} without a catalog. */
    public MeshIndex mesh() {
        return mesh;
    }

    public Collection<ZoneIndex> zones() {
        return zones.values();
    }

    /** The zone whose apex is exactly {@code origin}; null if none. */
    public ZoneIndex zone(Name origin) {
        return zones.get(origin);
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
        Map<Name, List<ZoneContent>> byOrigin = new LinkedHashMap<>();
        List<ZoneContent> overlay = new ArrayList<>();
        for (ZoneContent content : contents) {
            if (content.authoritative()) byOrigin.computeIfAbsent(content.origin(), o -> new ArrayList<>()).add(content);
            else overlay.add(content);
        }
        Map<Name, ZoneIndex> zones = new HashMap<>();
        byOrigin.forEach((origin, parts) -> {
            ZoneIndex zone = compileZone(origin, parts);
            if (zone != null) zones.put(origin, zone);
        });
        return new Snapshot(version, Map.copyOf(zones), compileOverlay(overlay), MeshIndex.EMPTY);
    }

    /**
     * This snapshot with the zones of {@code replaced} swapped (a null value drops the zone) and, when
     * {@code overlay} is not null, a new overlay. Every other zone is shared, not rebuilt.
     */
    Snapshot withZones(long version, Map<Name, ZoneIndex> replaced, ShardedMap<Name, Node> overlay) {
        return withZones(version, replaced, overlay, mesh);
    }

    /** Like {@link #withZones(long, Map, ShardedMap)}, with {@code index} as the mesh index (null keeps this one's). */
    Snapshot withZones(long version, Map<Name, ZoneIndex> replaced, ShardedMap<Name, Node> overlay, MeshIndex index) {
        Map<Name, ZoneIndex> next = new HashMap<>(zones);
        replaced.forEach((origin, zone) -> {
            if (zone == null) next.remove(origin);
            else next.put(origin, zone);
        });
        return new Snapshot(version, Map.copyOf(next), overlay == null ? this.overlay : overlay, index == null ? mesh : index);
    }

    /**
     * This snapshot with {@code patches} applied: only the owners they name change. Every patched
     * authoritative zone must exist here (the store checks).
     */
    Snapshot patch(long version, List<ZonePatch> patches) {
        return patch(version, patches, null);
    }

    /** Like {@link #patch(long, List)}, with {@code index} as the mesh index (null keeps this one's). */
    Snapshot patch(long version, List<ZonePatch> patches, MeshIndex index) {
        Map<Name, ZoneIndex> replaced = new HashMap<>();
        ShardedMap.Editor<Name, Node> overlayEdit = null;
        for (ZonePatch patch : patches) {
            if (patch.overlay()) {
                if (overlayEdit == null) overlayEdit = overlay.edit();
                for (Map.Entry<Name, List<Record>> e : patch.owners().entrySet()) {
                    if (e.getValue().isEmpty()) overlayEdit.remove(e.getKey());
                    else overlayEdit.put(e.getKey(), new Node(e.getKey(), Node.rrsets(e.getValue())));
                }
                continue;
            }
            ZoneIndex zone = replaced.containsKey(patch.origin()) ? replaced.get(patch.origin()) : zones.get(patch.origin());
            if (zone == null) throw new IllegalStateException("no zone " + patch.origin() + " to patch");
            Map<Name, Map<Integer, RRset>> owners = new HashMap<>();
            for (Map.Entry<Name, List<Record>> e : patch.owners().entrySet()) {
                if (!e.getKey().subdomain(patch.origin())) {
                    LOG.warnf("zone %s: skipping out-of-zone owner %s", patch.origin(), e.getKey());
                    continue;
                }
                owners.put(e.getKey(), Node.rrsets(e.getValue()));
            }
            replaced.put(patch.origin(), zone.patch(owners));
        }
        return withZones(version, replaced, overlayEdit == null ? null : overlayEdit.build(), index);
    }

    /** One authoritative zone from every source's content for it (first SOA wins); null when it has no SOA. */
    static ZoneIndex compileZone(Name origin, List<ZoneContent> parts) {
        SOARecord soa = null;
        Map<Name, List<Record>> byOwner = new LinkedHashMap<>();
        for (ZoneContent content : parts) {
            for (Record r : content.records()) {
                if (!r.getName().subdomain(origin)) {
                    LOG.warnf("zone %s: skipping out-of-zone record %s", origin, r);
                    continue;
                }
                if (r.getType() == Type.SOA) {
                    if (soa == null && r.getName().equals(origin)) soa = (SOARecord) r;
                    continue;
                }
                byOwner.computeIfAbsent(r.getName(), n -> new ArrayList<>()).add(r);
            }
        }
        if (soa == null) {
            LOG.errorf("zone %s has no SOA at its apex: not served", origin);
            return null;
        }
        byOwner.computeIfAbsent(origin, n -> new ArrayList<>()).add(soa);
        Map<Name, Map<Integer, RRset>> owners = new LinkedHashMap<>();
        byOwner.forEach((owner, records) -> owners.put(owner, Node.rrsets(records)));
        return ZoneIndex.build(origin, soa, owners);
    }

    /** The exact-name overlay from non-authoritative content. It owns no zone, so SOA records are left out. */
    static ShardedMap<Name, Node> compileOverlay(List<ZoneContent> parts) {
        Map<Name, List<Record>> byOwner = new LinkedHashMap<>();
        for (ZoneContent content : parts) {
            for (Record r : content.records()) {
                if (r.getType() != Type.SOA) byOwner.computeIfAbsent(r.getName(), n -> new ArrayList<>()).add(r);
            }
        }
        ShardedMap.Editor<Name, Node> nodes = ShardedMap.builder(byOwner.size());
        byOwner.forEach((owner, records) -> nodes.put(owner, new Node(owner, Node.rrsets(records))));
        return nodes.build();
    }
}
