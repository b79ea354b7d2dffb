package io.meshdns.dns.snapshot;

import org.xbill.DNS.Name;
import org.xbill.DNS.RRset;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.Type;

import java.util.Map;

/**
 * The compiled lookup index of one authoritative zone: every owner name (and every empty
 * non-terminal between an owner and the apex) mapped to its node. {@link Name} compares and hashes
 * case-insensitively, so lookups need no lowercasing.
 */
public final class ZoneIndex {
    private static final Name WILDCARD_LABEL = Name.fromConstantString("*");

    private final Name origin;
    private final String label;
    private final SOARecord negativeSoa;
    private final Map<Name, Node> nodes;
    private final boolean hasWildcards;
    private final boolean hasDelegations;

    ZoneIndex(Name origin, SOARecord soa, Map<Name, Node> nodes, boolean hasWildcards, boolean hasDelegations) {
        this.origin = origin;
        this.label = origin.toString();
        // RFC 2308 section 5: the SOA in a negative answer carries min(SOA TTL, SOA MINIMUM).
        long negativeTtl = Math.min(soa.getTTL(), soa.getMinimum());
        this.negativeSoa = new SOARecord(soa.getName(), soa.getDClass(), negativeTtl, soa.getHost(), soa.getAdmin(),
                soa.getSerial(), soa.getRefresh(), soa.getRetry(), soa.getExpire(), soa.getMinimum());
        this.nodes = nodes;
        this.hasWildcards = hasWildcards;
        this.hasDelegations = hasDelegations;
    }

    public Name origin() {
        return origin;
    }

    /** The zone's name as metrics and logs show it, e.g. {@code mesh.example.}. */
    public String label() {
        return label;
    }

    /** The apex SOA with the negative-caching TTL, ready for the authority section. */
    public SOARecord negativeSoa() {
        return negativeSoa;
    }

    public Node node(Name name) {
        return nodes.get(name);
    }

    public int size() {
        return nodes.size();
    }

    /**
     * RFC 4592: the source of synthesis for {@code name}, which must not exist in the zone. Walks up
     * to the closest encloser (the nearest existing ancestor, ENTs included) and returns its
     * {@code *} child, or null when there is none.
     */
    public Node wildcardFor(Name name) {
        if (!hasWildcards) {
            return null;
        }
        int originLabels = origin.labels();
        for (int strip = 1; name.labels() - strip >= originLabels; strip++) {
            Name ancestor = new Name(name, strip);
            if (nodes.containsKey(ancestor)) {
                return nodes.get(wildcardOf(ancestor));
            }
        }
        return null;
    }

    /**
     * The NS RRset of the zone cut at or above {@code name} (strictly below the apex), or null when
     * {@code name} is not delegated away. Names below a cut are not ours to answer: we refer.
     */
    public RRset delegationFor(Name name) {
        if (!hasDelegations) {
            return null;
        }
        int originLabels = origin.labels();
        for (int strip = name.labels() - originLabels - 1; strip >= 0; strip--) {
            Name candidate = strip == 0 ? name : new Name(name, strip);
            Node node = nodes.get(candidate);
            if (node != null && node.get(Type.NS) != null) {
                return node.get(Type.NS);
            }
        }
        return null;
    }

    static Name wildcardOf(Name parent) {
        try {
            return Name.concatenate(WILDCARD_LABEL, parent);
        } catch (org.xbill.DNS.NameTooLongException e) {
            return WILDCARD_LABEL; // cannot exist in the zone, so the lookup simply misses
        }
    }
}
