package io.meshdns.dns.snapshot;

import io.meshdns.dns.base.Names;

import io.meshdns.model.ShardedMap;
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
    private final ShardedMap<Name, Node> nodes;
    /** For every name strictly between an owner and the apex: how many owners with records lie below it. */
    private final ShardedMap<Name, Integer> ownersBelow;
    private final int wildcardNodes;
    private final int delegationNodes;

    private ZoneIndex(Name origin, SOARecord soa, ShardedMap<Name, Node> nodes, ShardedMap<Name, Integer> ownersBelow,
                      int wildcardNodes, int delegationNodes) {
        this.origin = origin;
        this.label = origin.toString();
        // RFC 2308 section 5: the SOA in a negative answer carries min(SOA TTL, SOA MINIMUM).
        long negativeTtl = Math.min(soa.getTTL(), soa.getMinimum());
        this.negativeSoa = new SOARecord(soa.getName(), soa.getDClass(), negativeTtl, soa.getHost(), soa.getAdmin(),
                soa.getSerial(), soa.getRefresh(), soa.getRetry(), soa.getExpire(), soa.getMinimum());
        this.nodes = nodes;
        this.ownersBelow = ownersBelow;
        this.wildcardNodes = wildcardNodes;
        this.delegationNodes = delegationNodes;
    }

    /**
     * Compiles a zone from its owners' RRsets; {@code soa} is its apex SOA. Names between an owner and the
     * apex become empty non-terminals. Every owner must be at or below {@code origin}.
     */
    static ZoneIndex build(Name origin, SOARecord soa, Map<Name, Map<Integer, RRset>> owners) {
        Patcher p = new Patcher(origin, ShardedMap.builder(owners.size() * 5 / 4), ShardedMap.builder(owners.size() / 2), 0, 0);
        owners.forEach(p::set);
        return p.finish(soa);
    }

    /**
     * This zone with each owner of {@code owners} given exactly those RRsets (an empty map removes the owner).
     * The work is proportional to the owners changed: untouched names are shared with this index. An apex
     * without a new SOA keeps the current one.
     */
    ZoneIndex patch(Map<Name, Map<Integer, RRset>> owners) {
        Patcher p = new Patcher(origin, nodes.edit(), ownersBelow.edit(), wildcardNodes, delegationNodes);
        owners.forEach(p::set);
        Node apex = p.nodes.get(origin);
        RRset soaSet = apex == null ? null : apex.get(Type.SOA);
        if (soaSet == null) {
            SOARecord keep = currentSoa();
            Map<Integer, RRset> sets = new java.util.HashMap<>(apex == null ? Map.of() : apex.rrsets());
            sets.put(Type.SOA, new RRset(keep));
            p.set(origin, sets);
            return p.finish(keep);
        }
        return p.finish((SOARecord) soaSet.first());
    }

    private SOARecord currentSoa() {
        Node apex = nodes.get(origin);
        RRset set = apex == null ? null : apex.get(Type.SOA);
        return set != null ? (SOARecord) set.first() : negativeSoa;
    }

    /** Applies owner changes while keeping the empty non-terminals and the wildcard/delegation counts right. */
    private static final class Patcher {
        final Name origin;
        final int originLabels;
        final ShardedMap.Editor<Name, Node> nodes;
        final ShardedMap.Editor<Name, Integer> below;
        int wildcards;
        int delegations;

        Patcher(Name origin, ShardedMap.Editor<Name, Node> nodes, ShardedMap.Editor<Name, Integer> below, int wildcards,
                int delegations) {
            this.origin = origin;
            this.originLabels = origin.labels();
            this.nodes = nodes;
            this.below = below;
            this.wildcards = wildcards;
            this.delegations = delegations;
        }

        void set(Name owner, Map<Integer, RRset> sets) {
            Node old = nodes.get(owner);
            boolean had = old != null && !old.isEmptyNonTerminal();
            boolean has = !sets.isEmpty();
            if (has) {
                replace(owner, old, new Node(owner, sets));
            } else if (below.get(owner) != null) {
                replace(owner, old, new Node(owner, Map.of())); // still has names below it: an empty non-terminal
            } else {
                replace(owner, old, null);
            }
            if (had == has) return;
            for (int strip = 1; owner.labels() - strip > originLabels; strip++) {
                Name ancestor = new Name(owner, strip);
                Integer count = below.get(ancestor);
                int n = (count == null ? 0 : count) + (has ? 1 : -1);
                if (n <= 0) below.remove(ancestor);
                else below.put(ancestor, n);
                Node node = nodes.get(ancestor);
                if (node == null && n > 0) replace(ancestor, null, new Node(ancestor, Map.of()));
                else if (node != null && node.isEmptyNonTerminal() && n <= 0) replace(ancestor, node, null);
            }
        }

        private void replace(Name owner, Node old, Node next) {
            if (owner.isWild()) wildcards += (next != null ? 1 : 0) - (old != null ? 1 : 0);
            if (!owner.equals(origin)) delegations += (delegates(next) ? 1 : 0) - (delegates(old) ? 1 : 0);
            if (next == null) nodes.remove(owner);
            else nodes.put(owner, next);
        }

        private static boolean delegates(Node node) {
            return node != null && node.get(Type.NS) != null;
        }

        ZoneIndex finish(SOARecord soa) {
            return new ZoneIndex(origin, soa, nodes.build(), below.build(), wildcards, delegations);
        }
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
        if (wildcardNodes == 0) {
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
        if (delegationNodes == 0) {
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
