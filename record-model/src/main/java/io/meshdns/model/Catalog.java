package io.meshdns.model;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An immutable catalog: entries by ref, at a version. Pure: applying a delta returns a new catalog
 * and never touches this one, so readers may hold a catalog for as long as they like.
 */
public final class Catalog {
    private static final Catalog EMPTY = new Catalog(0, List.of(), ShardedMap.empty());

    private final long version;
    private final List<ClusterStatus> clusters;
    private final ShardedMap<ObjectRef, CatalogEntry> entries;

    private Catalog(long version, List<ClusterStatus> clusters, ShardedMap<ObjectRef, CatalogEntry> entries) {
        this.version = version;
        this.clusters = List.copyOf(clusters);
        this.entries = entries;
    }

    public static Catalog empty() {
        return EMPTY;
    }

    public static Catalog of(CatalogSnapshot snapshot) {
        ShardedMap.Editor<ObjectRef, CatalogEntry> map = ShardedMap.builder(snapshot.entries().size());
        for (CatalogEntry e : snapshot.entries()) {
            map.put(e.ref(), e);
        }
        return new Catalog(snapshot.version(), snapshot.clusters(), map.build());
    }

    public long version() {
        return version;
    }

    public List<ClusterStatus> clusters() {
        return clusters;
    }

    public Map<ObjectRef, CatalogEntry> entries() {
        return entries;
    }

    public CatalogEntry get(ObjectRef ref) {
        return entries.get(ref);
    }

    /**
     * Applies {@code delta}; the cost follows the delta's size (the entry map shares every untouched shard
     * with this catalog's). Throws {@link IllegalStateException} when the delta does not start at
     * this catalog's version: the caller must then fetch a full snapshot.
     */
    public Catalog apply(CatalogDelta delta) {
        if (delta.fromVersion() != version) {
            throw new IllegalStateException("delta from version " + delta.fromVersion() + " does not apply to version " + version);
        }
        ShardedMap.Editor<ObjectRef, CatalogEntry> next = entries.edit();
        for (ObjectRef ref : delta.deletes()) {
            next.remove(ref);
        }
        for (CatalogEntry e : delta.upserts()) {
            next.put(e.ref(), e);
        }
        return new Catalog(delta.toVersion(), delta.clusters() == null ? clusters : delta.clusters(), next.build());
    }

    /** The delta that turns {@code from} into {@code to}; entries compare by value. */
    public static CatalogDelta diff(Catalog from, Catalog to) {
        List<CatalogEntry> upserts = new ArrayList<>();
        List<ObjectRef> deletes = new ArrayList<>();
        for (Map.Entry<ObjectRef, CatalogEntry> e : to.entries.entrySet()) {
            if (!Objects.equals(from.entries.get(e.getKey()), e.getValue())) {
                upserts.add(e.getValue());
            }
        }
        for (ObjectRef ref : from.entries.keySet()) {
            if (!to.entries.containsKey(ref)) {
                deletes.add(ref);
            }
        }
        upserts.sort((a, b) -> a.ref().compareTo(b.ref()));
        Collections.sort(deletes);
        List<ClusterStatus> clusters = from.clusters.equals(to.clusters) ? null : to.clusters;
        return new CatalogDelta(from.version, to.version, clusters, upserts, deletes);
    }

    public CatalogSnapshot toSnapshot() {
        List<CatalogEntry> sorted = new ArrayList<>(entries.values());
        sorted.sort((a, b) -> a.ref().compareTo(b.ref()));
        return new CatalogSnapshot(CatalogSnapshot.FORMAT_VERSION, version, clusters, sorted);
    }

    public <T extends CatalogEntry> List<T> ofType(Class<T> type) {
        List<T> out = new ArrayList<>();
        for (CatalogEntry e : entries.values()) {
            if (type.isInstance(e)) out.add(type.cast(e));
        }
        return out;
    }

    public Collection<CatalogEntry> values() {
        return entries.values();
    }

    @Override
    public String toString() {
        return "Catalog{version=" + version + ", entries=" + entries.size() + "}";
    }
}
