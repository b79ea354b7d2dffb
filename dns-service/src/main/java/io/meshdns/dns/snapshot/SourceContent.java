package io.meshdns.dns.snapshot;

import org.xbill.DNS.Name;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one {@link RecordSource} holds, per zone, read by {@link SnapshotStore} when it compiles a zone.
 * A source that publishes whole lists is wrapped by {@link #of(List)}; a source that publishes
 * {@link ZonePatch}es provides a view of its live state instead, so that nothing is copied until a
 * zone it shares really has to be recompiled.
 */
public interface SourceContent {
    SourceContent EMPTY = of(List.of());

    /** Authoritative origins this source has records for. */
    Set<Name> origins();

    /** The source's records for {@code origin} (authoritative), or for the overlay when origin is null; null if none. */
    ZoneContent zone(Name origin);

    /**
     * Owner names this source holds in the overlay, or null when it cannot tell cheaply (the store then
     * assumes they may collide with anybody's).
     */
    Set<Name> overlayOwners();

    /** Everything, as whole contents (the authoritative zones, then the overlay). */
    default List<ZoneContent> all() {
        List<ZoneContent> out = new ArrayList<>();
        for (Name origin : origins()) {
            ZoneContent z = zone(origin);
            if (z != null) out.add(z);
        }
        ZoneContent overlay = zone(null);
        if (overlay != null) out.add(overlay);
        return out;
    }

    /** A fixed list of contents, grouped by origin (several contents of one origin are concatenated). */
    static SourceContent of(List<ZoneContent> contents) {
        Map<Name, List<org.xbill.DNS.Record>> auth = new LinkedHashMap<>();
        List<org.xbill.DNS.Record> overlay = new ArrayList<>();
        for (ZoneContent c : contents) {
            if (c.authoritative()) auth.computeIfAbsent(c.origin(), o -> new ArrayList<>()).addAll(c.records());
            else overlay.addAll(c.records());
        }
        Map<Name, ZoneContent> zones = new LinkedHashMap<>();
        auth.forEach((origin, records) -> zones.put(origin, new ZoneContent(origin, records, true)));
        ZoneContent overlayContent = overlay.isEmpty() ? null : new ZoneContent(Name.root, overlay, false);
        Set<Name> overlayOwners = new LinkedHashSet<>();
        for (org.xbill.DNS.Record r : overlay) overlayOwners.add(r.getName());
        Set<Name> origins = Set.copyOf(zones.keySet());
        Set<Name> owners = Set.copyOf(overlayOwners);
        return new SourceContent() {
            @Override
            public Set<Name> origins() {
                return origins;
            }

            @Override
            public ZoneContent zone(Name origin) {
                return origin == null ? overlayContent : zones.get(origin);
            }

            @Override
            public Set<Name> overlayOwners() {
                return owners;
            }
        };
    }
}
