package io.meshdns.dns.kubernetes;

import io.meshdns.dns.snapshot.MeshIndex;

import io.meshdns.dns.snapshot.ZoneContent;

import java.util.List;

/**
 * The result of one compile: the zone contents to publish through the snapshot store, the index the
 * answer-time policies read, and warnings about catalog data that could not become records (logged by
 * the caller; never a reason to drop other records).
 */
public record MeshZones(List<ZoneContent> zones, MeshIndex index, List<String> warnings) {
    public MeshZones {
        zones = List.copyOf(zones);
        warnings = List.copyOf(warnings);
    }
}
