package io.meshdns.dns.snapshot;

import org.xbill.DNS.Name;
import org.xbill.DNS.RRset;

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

    public RRset get(int type) {
        return rrsets.get(type);
    }

    public boolean isEmptyNonTerminal() {
        return rrsets.isEmpty();
    }
}
