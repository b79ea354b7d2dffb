package io.meshdns.dns.kubernetes;

import io.meshdns.model.Catalog;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.ObjectRef;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * One builder's side of the incremental bookkeeping: which catalog entries feed each of its contributors, and
 * which contributors the current operation touched. Not thread-safe (the compiler serialises operations).
 */
final class ContributorFeeds<K extends Comparable<K>> {
    final KindRecords<K> builder;
    private final Map<K, Set<ObjectRef>> feeding = new HashMap<>();
    /** Touched since the last {@link #drainTouched}, in compile order. */
    private final Set<K> touched = new TreeSet<>();

    ContributorFeeds(KindRecords<K> builder) {
        this.builder = builder;
    }

    /** Notes that {@code entry} now feeds ({@code add}) or no longer feeds its contributors, and marks them touched. */
    void track(CatalogEntry entry, boolean add) {
        ObjectRef ref = entry.ref();
        for (K key : builder.contributors(entry)) {
            if (add) {
                feeding.computeIfAbsent(key, k -> new HashSet<>()).add(ref);
            } else {
                Set<ObjectRef> refs = feeding.get(key);
                if (refs != null && refs.remove(ref) && refs.isEmpty()) feeding.remove(key);
            }
            touched.add(key);
        }
    }

    /** Marks a contributor touched whose entries did not change (its records read something that did). */
    void touch(K key) {
        touched.add(key);
    }

    /** The contributors touched so far, in compile order; the set starts empty again. */
    List<K> drainTouched() {
        List<K> keys = new ArrayList<>(touched);
        touched.clear();
        return keys;
    }

    /** Every entry of {@code catalog} that feeds {@code key}. */
    List<CatalogEntry> entries(K key, Catalog catalog) {
        List<CatalogEntry> entries = new ArrayList<>();
        for (ObjectRef ref : feeding.getOrDefault(key, Set.of())) {
            CatalogEntry e = catalog.get(ref);
            if (e != null) entries.add(e);
        }
        return entries;
    }
}
