package io.meshdns.model;

import com.fasterxml.jackson.annotation.JsonIgnore;

import java.util.List;

/**
 * The change from {@code fromVersion} to {@code toVersion}: entries added or replaced, and refs
 * removed. {@code clusters}, when non-null, replaces the cluster list whole (it is small).
 * A client applies a delta only when its own version equals {@code fromVersion}.
 */
public record CatalogDelta(long fromVersion, long toVersion, List<ClusterStatus> clusters,
                           List<CatalogEntry> upserts, List<ObjectRef> deletes) {
    public CatalogDelta {
        upserts = upserts == null ? List.of() : List.copyOf(upserts);
        deletes = deletes == null ? List.of() : List.copyOf(deletes);
        clusters = clusters == null ? null : List.copyOf(clusters);
    }

    @JsonIgnore
    public boolean isEmpty() {
        return upserts.isEmpty() && deletes.isEmpty() && clusters == null;
    }
}
