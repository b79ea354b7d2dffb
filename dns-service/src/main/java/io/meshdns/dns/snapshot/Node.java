package io.meshdns.dns.snapshot;

import org.xbill.DNS.Name;
import org.xbill.DNS.RRset;
import org.xbill.DNS.Record;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One owner name in the index with its RRsets by type. A node without RRsets is an empty
 * non-terminal (RFC 8020): it exists, so a query for it is NODATA, never NXDOMAIN, and (RFC 4592)
 * a wildcard never answers for it.
 */
public record Node(Name owner, Map<Integer, RRset> rrsets) {
    public Node {
        rrsets = Map.copyOf(rrsets);
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

    public RRset get(int type) {
        return rrsets.get(type);
    }

    public boolean isEmptyNonTerminal() {
        return rrsets.isEmpty();
    }
}
