package io.meshdns.exposure.provider;

import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.plan.Changes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Turns record operations into whole-RRset {@link Changes} for providers that only replace RRsets
 * (webhook, PowerDNS, CoreDNS-etcd): each touched RRset starts as the provider last returned it,
 * the operations are applied to that copy in order, and the difference is one create, one
 * update old → new, or one delete. An RRset that ends as it started produces nothing. Pure.
 */
public final class RRsetFolding {

    private RRsetFolding() {
    }

    public static Changes fold(List<Endpoint> current, List<RecordOp> ops) {
        return fold(current, ops, Set.of());
    }

    /**
     * @param properties the provider-specific properties the provider stores ({@link Provider#storedProperties}): an
     *     RRset whose last operation carries other values of them is updated even when its records stay
     */
    public static Changes fold(List<Endpoint> current, List<RecordOp> ops, Set<String> properties) {
        var before = new LinkedHashMap<Endpoint.Key, Endpoint>();
        for (Endpoint e : current) {
            before.merge(e.key(), e, (a, b) -> a.withTargets(union(a.targets(), b.targets())));
        }
        var after = new LinkedHashMap<Endpoint.Key, State>();
        for (RecordOp op : ops) {
            Endpoint e = op.endpoint();
            State s = after.computeIfAbsent(e.key(), k -> State.of(before.get(k), e));
            if (op instanceof RecordOp.ReplaceRRset) {
                s.replace(e);
            } else if (op instanceof RecordOp.DeleteRRset) {
                s.targets.clear();
            } else if (op instanceof RecordOp.AddRecords) {
                s.add(e);
            } else {
                s.targets.removeAll(e.targets());
            }
        }
        var create = new ArrayList<Endpoint>();
        var updateOld = new ArrayList<Endpoint>();
        var updateNew = new ArrayList<Endpoint>();
        var delete = new ArrayList<Endpoint>();
        for (Map.Entry<Endpoint.Key, State> entry : after.entrySet()) {
            Endpoint old = before.get(entry.getKey());
            State s = entry.getValue();
            if (s.targets.isEmpty()) {
                if (old != null && !old.targets().isEmpty()) delete.add(old);
                continue;
            }
            Endpoint wanted = s.template.withTargets(List.copyOf(s.targets)).withTtl(s.ttl).withLabels(Map.of());
            if (old == null || old.targets().isEmpty()) {
                create.add(wanted);
            } else if (!old.targets().equals(wanted.targets()) || (s.ttlSet && old.ttl() != wanted.ttl())
                    || (s.propertiesSet && !old.providerSpecific(properties).equals(wanted.providerSpecific(properties)))) {
                updateOld.add(old);
                updateNew.add(wanted);
            }
        }
        return new Changes(create, updateOld, updateNew, delete);
    }

    private static List<String> union(List<String> a, List<String> b) {
        var s = new TreeSet<>(a);
        s.addAll(b);
        return List.copyOf(s);
    }

    private static final class State {
        Endpoint template;
        final TreeSet<String> targets = new TreeSet<>();
        long ttl;
        boolean ttlSet;
        /** An operation wrote the RRset's records (not only deleted some): its template's properties count. */
        boolean propertiesSet;

        static State of(Endpoint existing, Endpoint first) {
            var s = new State();
            s.template = first;
            if (existing != null) {
                s.targets.addAll(existing.targets());
                s.ttl = existing.ttl();
            }
            return s;
        }

        void replace(Endpoint e) {
            targets.clear();
            targets.addAll(e.targets());
            template = e;
            ttl = e.ttl();
            ttlSet = true;
            propertiesSet = true;
        }

        void add(Endpoint e) {
            boolean wasEmpty = targets.isEmpty();
            targets.addAll(e.targets());
            template = e;
            propertiesSet = true;
            // a TTL of 0 means "not configured": it does not move the TTL of records already there
            if (e.ttl() != 0 || wasEmpty) {
                ttl = e.ttl();
                ttlSet = e.ttl() != 0 || wasEmpty;
            }
        }
    }
}
