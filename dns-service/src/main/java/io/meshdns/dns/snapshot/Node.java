package io.meshdns.dns.snapshot;

import org.xbill.DNS.Name;
import org.xbill.DNS.RRset;
import org.xbill.DNS.Record;

import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One owner name in the index with its RRsets by type. A node without RRsets is an empty
 * non-terminal (RFC 8020): it exists, so a query for it is NODATA, never NXDOMAIN, and (RFC 4592)
 * a wildcard never answers for it.
 *
 * <p>Stored compactly because a snapshot holds one node per name (100k names at scale): an RRset of
 * one record and no signatures, which is what most mesh names have (a ClusterIP, a ServiceEntry
 * VIP), is kept as the bare record and wrapped in a new {@link RRset} when asked for. A dnsjava
 * RRset costs ~170 bytes for one record (the RRset, two lists, a ten-slot array) and the type map 32
 * more; the bare record costs nothing extra (16 MB less live heap at 100k records). RRsets of several
 * records stay shared objects: dnsjava keeps their rotation position in them.
 */
public final class Node {
    private static final int[] NO_TYPES = {};
    private static final Object[] NO_SETS = {};

    private final Name owner;
    /** The first type's RRset (a lone {@link Record} or an {@link RRset}); null for an empty non-terminal. */
    private final Object first;
    private final int firstType;
    /** The other types, in the same two forms; empty arrays when the node has one type. */
    private final int[] moreTypes;
    private final Object[] more;

    public Node(Name owner, Map<Integer, RRset> rrsets) {
        this.owner = owner;
        int n = rrsets.size();
        int[] types = new int[n];
        Object[] sets = new Object[n];
        int i = 0;
        for (Map.Entry<Integer, RRset> e : rrsets.entrySet()) {
            types[i] = e.getKey();
            sets[i++] = compact(e.getValue());
        }
        this.firstType = n == 0 ? 0 : types[0];
        this.first = n == 0 ? null : sets[0];
        this.moreTypes = n <= 1 ? NO_TYPES : Arrays.copyOfRange(types, 1, n);
        this.more = n <= 1 ? NO_SETS : Arrays.copyOfRange(sets, 1, n);
    }

    private static Object compact(RRset set) {
        return set.size() == 1 && set.sigs().isEmpty() ? set.first() : set;
    }

    /** The RRsets of {@code records} (all owned by one name), by type. */
    public static Map<Integer, RRset> rrsets(List<Record> records) {
        Map<Integer, RRset> sets = new HashMap<>();
        for (Record r : records) {
            RRset set = sets.get(r.getType());
            if (set == null) {
                sets.put(r.getType(), new RRset(r));
            } else {
                set.addRR(r); // dnsjava drops duplicates and aligns the RRset TTL to the lowest
            }
        }
        return sets;
    }

    public Name owner() {
        return owner;
    }

    /** The RRset of {@code type}, or null. A one-record RRset is a new object on every call. */
    public RRset get(int type) {
        if (first == null) {
            return null;
        }
        if (firstType == type) {
            return expand(first);
        }
        for (int i = 0; i < moreTypes.length; i++) {
            if (moreTypes[i] == type) {
                return expand(more[i]);
            }
        }
        return null;
    }

    private static RRset expand(Object set) {
        return set instanceof RRset rrset ? rrset : new RRset((Record) set);
    }

    /** Every RRset of this node by type, in a new map. */
    public Map<Integer, RRset> rrsets() {
        Map<Integer, RRset> sets = new LinkedHashMap<>();
        if (first != null) {
            sets.put(firstType, expand(first));
            for (int i = 0; i < moreTypes.length; i++) {
                sets.put(moreTypes[i], expand(more[i]));
            }
        }
        return sets;
    }

    public boolean isEmptyNonTerminal() {
        return first == null;
    }

    @Override
    public String toString() {
        return "Node[" + owner + " " + rrsets() + "]";
    }
}
