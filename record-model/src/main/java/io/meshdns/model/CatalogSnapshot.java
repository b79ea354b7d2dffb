package io.meshdns.model;

import java.util.List;

/**
 * The full catalog at one version: what {@code GET /v1/snapshot} returns and what a dns-service
 * persists to its snapshot file. Entries are sorted by {@link ObjectRef} so equal catalogs encode
 * to equal bytes.
 */
public record CatalogSnapshot(int formatVersion, long version, List<ClusterStatus> clusters, List<CatalogEntry> entries) {
    public static final int FORMAT_VERSION = 1;

    public CatalogSnapshot {
        clusters = clusters == null ? List.of() : List.copyOf(clusters);
        entries = entries == null ? List.of() : List.copyOf(entries);
    }

    public static CatalogSnapshot empty() {
        return new CatalogSnapshot(FORMAT_VERSION, 0, List.of(), List.of());
    }
}
