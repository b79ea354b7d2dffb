package io.meshdns.exposure.plan;

import io.meshdns.exposure.endpoint.Endpoint;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

/**
 * The pure heart of the publisher: current × desired × policy × filters → {@link Changes}.
 * No I/O, no clock, no randomness: the same input always gives the same plan (dry-run prints it).
 *
 * <p>Rules, in order:
 * <ol>
 *   <li>Only names the {@link DomainFilter} accepts and types the {@link RecordTypeFilter} manages are considered, on
 *       both sides: everything else is invisible to the plan and so never touched.</li>
 *   <li>A CNAME cannot share its name with other data: when sources want a CNAME and another type
 *       at one name, the CNAME is dropped (reported as a conflict).</li>
 *   <li>Several sources wanting one RRset (same name, type, set identifier): the one whose
 *       resource already owns the current record wins (no flapping); otherwise the smallest resource
 *       key ("crd/ns/a" &lt; "ingress/.." &lt; "service/..") wins; ties by targets. Like ExternalDNS's
 *       PerResource conflict resolver.</li>
 *   <li>A current RRset owned by someone else (or by nobody) is never changed or deleted. The only
 *       exception is joining: when every foreign claim on it is a multi-owner share
 *       ({@link Endpoint#SHARED_LABEL}), we create our own share next to theirs.</li>
 *   <li>Policy: create-only creates; upsert-only also updates; sync also deletes.</li>
 *   <li>Never delete a record whose resource's source evaluation had an error (an invalid
 *       annotation must not unpublish anything).</li>
 *   <li>Update when the targets differ, when a TTL is configured (non-zero) and differs, or when a
 *       provider-specific property the provider stores ({@link Input#properties}, e.g. CoreDNS's group) differs, as
 *       ExternalDNS compares them; the TTL and properties of a multi-owner RRset are shared, so they are not compared
 *       there (owners would fight).</li>
 * </ol>
 */
public final class Plan {

    public static final Set<String> MANAGED_TYPES = RecordTypeFilter.SUPPORTED;

    private Plan() {
    }

    /**
     * @param properties the provider-specific properties the provider stores and reads back: a difference in one of
     *     them is an update; the others are carried to the provider and never compared
     */
    public record Input(List<Endpoint> current, List<Endpoint> desired, Policy policy, DomainFilter filter,
                        String ownerId, Set<String> erroredResources, RecordTypeFilter types, Set<String> properties) {
        public Input(List<Endpoint> current, List<Endpoint> desired, Policy policy, DomainFilter filter,
                     String ownerId, Set<String> erroredResources, RecordTypeFilter types) {
            this(current, desired, policy, filter, ownerId, erroredResources, types, Set.of());
        }

        public Input(List<Endpoint> current, List<Endpoint> desired, Policy policy, DomainFilter filter,
                     String ownerId, Set<String> erroredResources) {
            this(current, desired, policy, filter, ownerId, erroredResources, RecordTypeFilter.ALL);
        }
    }

    /** @param conflicts one line per desired RRset that was not applied, and why (owner mismatch, CNAME clash, ...). */
    public record Result(Changes changes, List<String> conflicts, int ownerMismatches, List<Refusal> refusals) {
        public Result(Changes changes, List<String> conflicts, int ownerMismatches) {
            this(changes, conflicts, ownerMismatches, List.of());
        }
    }

    /** A desired RRset of {@code resource} that the plan did not apply, and why (becomes a Conflict Event). */
    public record Refusal(String resource, String message) {
    }

    public static Result calculate(Input in) {
        var conflicts = new ArrayList<String>();
        var refusals = new ArrayList<Refusal>();
        int[] mismatches = {0};

        var desiredByKey = new TreeMap<Endpoint.Key, List<Endpoint>>();
        var desiredTypesByName = new TreeMap<String, Set<String>>();
        for (Endpoint e : in.desired()) {
            if (!considered(e, in) || e.targets().isEmpty()) continue;
            desiredByKey.computeIfAbsent(e.key(), k -> new ArrayList<>()).add(e);
            desiredTypesByName.computeIfAbsent(e.dnsName(), k -> new HashSet<>()).add(e.recordType());
        }
        var ours = new TreeMap<Endpoint.Key, Endpoint>();
        var foreign = new TreeMap<Endpoint.Key, List<Endpoint>>();
        for (Endpoint e : in.current()) {
            if (!considered(e, in)) continue;
            if (in.ownerId().equals(e.owner())) {
                ours.put(e.key(), e);
            } else {
                foreign.computeIfAbsent(e.key(), k -> new ArrayList<>()).add(e);
            }
        }

        var create = new ArrayList<Endpoint>();
        var updateOld = new ArrayList<Endpoint>();
        var updateNew = new ArrayList<Endpoint>();
        var delete = new ArrayList<Endpoint>();

        var keys = new TreeMap<Endpoint.Key, Boolean>();
        desiredByKey.keySet().forEach(k -> keys.put(k, true));
        ours.keySet().forEach(k -> keys.put(k, true));

        for (Endpoint.Key key : keys.keySet()) {
            Endpoint current = ours.get(key);
            List<Endpoint> candidates = desiredByKey.getOrDefault(key, List.of());
            if (key.recordType().equals("CNAME") && !candidates.isEmpty()
                    && desiredTypesByName.get(key.dnsName()).size() > 1) {
                conflicts.add(key + ": CNAME dropped, other record types are wanted at the same name");
                for (Endpoint c : candidates) {
                    refusals.add(new Refusal(c.resource(), key + ": CNAME not published, other record types are wanted at the same name"));
                }
                candidates = List.of();
            }
            Endpoint wanted = candidates.isEmpty() ? null : resolve(candidates, current, conflicts);
            if (wanted != null && candidates.size() > 1) {
                for (Endpoint c : candidates) {
                    if (!c.resource().equals(wanted.resource()) && !c.targets().equals(wanted.targets())) {
                        refusals.add(new Refusal(c.resource(), key + " not published: also wanted by " + wanted.resource() + ", which wins"));
                    }
                }
            }
            if (wanted != null) {
                wanted = wanted.withLabel(Endpoint.OWNER_LABEL, in.ownerId());
                if (current == null) {
                    List<Endpoint> others = foreign.getOrDefault(key, List.of());
                    boolean joinable = others.isEmpty()
                            || (!key.recordType().equals("CNAME") && others.stream().allMatch(Endpoint::shared));
                    if (!joinable) {
                        mismatches[0]++;
                        conflicts.add(key + ": owned by " + owners(others) + ", not by " + in.ownerId() + "; left alone");
                        refusals.add(new Refusal(wanted.resource(), key + " not published: owned by " + owners(others)
                                + ", not by " + in.ownerId()));
                    } else {
                        create.add(wanted);
                    }
                } else if (in.policy().allowsUpdate() && needsUpdate(current, wanted, in.properties())) {
                    updateOld.add(current);
                    // keep the resource that owns the record today when only targets/TTL move
                    updateNew.add(current.shared() ? wanted.withLabel(Endpoint.SHARED_LABEL, "true") : wanted);
                }
            } else if (current != null && in.policy().allowsDelete()) {
                if (in.erroredResources().contains(current.resource())) {
                    conflicts.add(key + ": kept, source " + current.resource() + " had errors");
                } else {
                    delete.add(current);
                }
            }
        }
        if (!in.policy().allowsUpdate()) {
            updateOld.clear();
            updateNew.clear();
        }
        return new Result(new Changes(create, updateOld, updateNew, delete), List.copyOf(conflicts), mismatches[0], List.copyOf(refusals));
    }

    private static boolean considered(Endpoint e, Input in) {
        return in.types().accepts(e.recordType()) && in.filter().matches(e.dnsName());
    }

    private static Endpoint resolve(List<Endpoint> candidates, Endpoint current, List<String> conflicts) {
        if (candidates.size() == 1) return candidates.get(0);
        if (current != null) {
            for (Endpoint c : candidates) {
                if (!current.resource().isEmpty() && c.resource().equals(current.resource())) {
                    noteConflict(candidates, c, conflicts);
                    return c;
                }
            }
        }
        Endpoint best = candidates.stream()
                .min(Comparator.comparing(Endpoint::resource).thenComparing(e -> String.join(",", e.targets())))
                .orElseThrow();
        noteConflict(candidates, best, conflicts);
        return best;
    }

    private static void noteConflict(List<Endpoint> candidates, Endpoint winner, List<String> conflicts) {
        boolean allSame = candidates.stream().allMatch(c -> c.targets().equals(winner.targets()));
        if (!allSame) {
            conflicts.add(winner.key() + ": wanted by several resources, " + winner.resource() + " wins");
        }
    }

    private static boolean needsUpdate(Endpoint current, Endpoint wanted, Set<String> properties) {
        if (!current.targets().equals(wanted.targets())) return true;
        if (current.shared()) return false;
        return (wanted.ttl() != 0 && wanted.ttl() != current.ttl())
                || !current.providerSpecific(properties).equals(wanted.providerSpecific(properties));
    }

    private static String owners(List<Endpoint> others) {
        var s = others.stream().map(e -> e.owner().isEmpty() ? "nobody (unmanaged record)" : e.owner()).distinct().toList();
        return String.join(", ", s);
    }
}
