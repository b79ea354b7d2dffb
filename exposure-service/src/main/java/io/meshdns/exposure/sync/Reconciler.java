package io.meshdns.exposure.sync;

import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.plan.Changes;
import io.meshdns.exposure.plan.DomainFilter;
import io.meshdns.exposure.plan.Plan;
import io.meshdns.exposure.plan.Policy;
import io.meshdns.exposure.plan.RecordTypeFilter;
import io.meshdns.exposure.plan.TargetNetFilter;
import io.meshdns.exposure.provider.ProviderException;
import io.meshdns.exposure.provider.RecordOp;
import io.meshdns.exposure.registry.TxtNameMapper;
import io.meshdns.exposure.registry.Registry;
import io.meshdns.exposure.source.Desired;
import io.meshdns.exposure.source.Problem;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jboss.logging.Logger;

/**
 * One reconcile pass against one provider target: read (registry) → plan (pure) → apply.
 * Dry-run lives here and only here: the plan is logged and nothing is written.
 *
 * <p>Per-object isolation: the changes go to the provider as one batch; when the provider
 * <em>rejects</em> the batch (not when it is unreachable) the batch is split in halves until the
 * refused change is alone, so every other change is still applied and the refused one becomes an
 * {@code Invalid} problem on the object that wanted it. A desired record whose name is the
 * ownership TXT name of another RRset is refused before the plan ({@code Conflict}), so no object
 * can squat another's claim.
 */
public final class Reconciler {

    private static final Logger LOG = Logger.getLogger(Reconciler.class);

    private final Registry registry;
    private final Policy policy;
    private final DomainFilter filter;
    private final boolean dryRun;
    private final TxtNameMapper mapper;
    private final RecordTypeFilter types;
    private final TargetNetFilter targetNets;

    public Reconciler(Registry registry, Policy policy, DomainFilter filter, boolean dryRun) {
        this(registry, policy, filter, dryRun, TxtNameMapper.plain());
    }

    public Reconciler(Registry registry, Policy policy, DomainFilter filter, boolean dryRun, TxtNameMapper mapper) {
        this(registry, policy, filter, dryRun, mapper, RecordTypeFilter.ALL);
    }

    public Reconciler(Registry registry, Policy policy, DomainFilter filter, boolean dryRun, TxtNameMapper mapper,
                      RecordTypeFilter types) {
        this(registry, policy, filter, dryRun, mapper, types, TargetNetFilter.ALL);
    }

    public Reconciler(Registry registry, Policy policy, DomainFilter filter, boolean dryRun, TxtNameMapper mapper,
                      RecordTypeFilter types, TargetNetFilter targetNets) {
        this.types = types;
        this.targetNets = targetNets;
        this.registry = registry;
        this.policy = policy;
        this.filter = filter;
        this.dryRun = dryRun;
        this.mapper = mapper;
    }

    /**
     * @param recordsByType our (owned) records after the pass, by type, for the records gauge.
     * @param problems      Invalid (refused by the provider) and Conflict (squatting) problems, per object
     * @param published     resource keys whose changes were applied in this pass
     */
    public record Outcome(Changes changes, List<RecordOp> ops, List<String> conflicts, int ownerMismatches,
                          boolean applied, Map<String, Integer> recordsByType, List<Problem> problems,
                          Set<String> published) {
    }

    public String target() {
        return registry.describe();
    }

    public Registry registry() {
        return registry;
    }

    public Outcome reconcile(Desired desired) throws ProviderException {
        Registry.View view = registry.records();
        var problems = new ArrayList<Problem>();
        var providerFilter = registry.domainFilter();
        List<Endpoint> wanted = targetNets.apply(desired.endpoints()).stream()
                .filter(e -> providerFilter.map(f -> f.matches(e.dnsName())).orElse(true)).toList();
        List<Endpoint> current = view.current().stream()
                .filter(e -> providerFilter.map(f -> f.matches(e.dnsName())).orElse(true)).toList();
        wanted = refuseSquatters(wanted, current, problems);
        if (!wanted.isEmpty()) wanted = registry.adjust(wanted);
        // adopt-owners: an old owner's RRset becomes ours only when it is desired and inside the filters;
        // everything else of the old owner stays foreign, so nothing of it is ever deleted
        var wantedKeys = new HashSet<Endpoint.Key>();
        wanted.forEach(e -> wantedKeys.add(e.key()));
        var adopted = new LinkedHashMap<Endpoint, String>();
        if (!registry.adoptOwners().isEmpty()) {
            var relabelled = new ArrayList<Endpoint>(current.size());
            for (Endpoint e : current) {
                if (registry.adoptOwners().contains(e.owner()) && !e.shared() && wantedKeys.contains(e.key()) && filter.matches(e.dnsName())) {
                    Endpoint ours = e.withLabel(Endpoint.OWNER_LABEL, registry.ownerId());
                    relabelled.add(ours);
                    adopted.put(ours, e.owner());
                } else {
                    relabelled.add(e);
                }
            }
            current = relabelled;
        }
        Plan.Result result = Plan.calculate(new Plan.Input(current, wanted, policy, filter,
                registry.ownerId(), desired.erroredResources(), types, registry.storedProperties()));
        for (Plan.Refusal refusal : result.refusals()) {
            Problem.about(refusal.resource(), Problem.CONFLICT, refusal.message()).ifPresent(problems::add);
        }
        List<Registry.Unit> units = new ArrayList<>(registry.units(view, result.changes()));
        var updated = new HashSet<Endpoint.Key>();
        result.changes().updateNew().forEach(e -> updated.add(e.key()));
        for (var a : adopted.entrySet()) {
            Endpoint ours = a.getKey();
            if (updated.contains(ours.key())) continue; // the update writes our claim already
            final List<Endpoint> w = wanted;
            Endpoint withResource = w.stream().filter(x -> x.key().equals(ours.key())).findFirst()
                    .map(x -> ours.withLabel(Endpoint.RESOURCE_LABEL, x.resource())).orElse(ours);
            units.add(registry.adoption(view, withResource));
            LOG.infof("[%s] %sADOPT %s %s from owner %s", target(), dryRun ? "DRY-RUN " : "", ours.dnsName(), ours.recordType(), a.getValue());
        }
        var ops = new ArrayList<RecordOp>();
        units.forEach(u -> ops.addAll(u.ops()));
        result.conflicts().forEach(c -> LOG.debugf("[%s] %s", target(), c));
        if (dryRun) {
            LOG.infof("[%s] DRY-RUN plan (policy %s, owner %s): %s%s", target(), policy.configName(), registry.ownerId(),
                    result.changes().describe(), view.upgrades().isEmpty() ? "" : "\n  + " + view.upgrades().size() + " ownership TXT upgrades");
            return new Outcome(result.changes(), ops, result.conflicts(), result.ownerMismatches(), false, count(view.current()),
                    List.copyOf(problems), Set.of());
        }
        var published = new HashSet<String>();
        if (!ops.isEmpty()) {
            LOG.infof("[%s] applying %d changes (%d record operations): %s", target(), result.changes().size(), ops.size(),
                    result.changes().describe());
            var refused = new LinkedHashMap<Registry.Unit, String>();
            applyIsolated(view, units, refused);
            var refusedResources = new HashSet<String>();
            refused.keySet().forEach(u -> refusedResources.add(u.change().resource()));
            for (Registry.Unit u : units) {
                if (!refused.containsKey(u) && !u.change().resource().isEmpty() && !refusedResources.contains(u.change().resource())) {
                    published.add(u.change().resource());
                }
            }
            for (var r : refused.entrySet()) {
                Registry.Unit u = r.getKey();
                String why = u.action() + " " + u.change().dnsName() + " " + u.change().recordType() + " refused by " + target()
                        + ": " + r.getValue();
                LOG.warnf("[%s] %s", target(), why);
                Problem.about(u.change().resource(), Problem.INVALID, why).ifPresent(problems::add);
            }
        }
        return new Outcome(result.changes(), ops, result.conflicts(), result.ownerMismatches(), true, count(view.current()),
                List.copyOf(problems), Set.copyOf(published));
    }

    /** Applies the units; a rejected batch is halved until each refused unit is alone. Unreachable = the pass fails. */
    private void applyIsolated(Registry.View view, List<Registry.Unit> units, Map<Registry.Unit, String> refused)
            throws ProviderException {
        if (units.isEmpty()) return;
        try {
            registry.apply(view, units);
        } catch (ProviderException e) {
            if (!e.rejected()) throw e;
            if (units.size() == 1) {
                refused.put(units.get(0), e.getMessage());
                return;
            }
            int mid = units.size() / 2;
            applyIsolated(view, units.subList(0, mid), refused);
            applyIsolated(view, units.subList(mid, units.size()), refused);
        }
    }

    /**
     * Ownership TXT names cannot be squatted: a desired record at the typed (or legacy) TXT name of
     * another desired or existing RRset is dropped and reported, whoever asks for it.
     */
    private List<Endpoint> refuseSquatters(List<Endpoint> wanted, List<Endpoint> current, List<Problem> problems) {
        var claimNames = new TreeMap<String, Endpoint>();
        for (List<Endpoint> side : List.of(wanted, current)) {
            for (Endpoint e : side) {
                claimNames.putIfAbsent(mapper.typedName(e.dnsName(), e.recordType()), e);
            }
        }
        var kept = new ArrayList<Endpoint>(wanted.size());
        for (Endpoint e : wanted) {
            Endpoint victim = claimNames.get(e.dnsName());
            if (victim != null && !victim.key().equals(e.key())) {
                String why = e.dnsName() + " " + e.recordType() + " not published: " + e.dnsName()
                        + " is where the ownership record of " + victim.dnsName() + " " + victim.recordType() + " lives";
                LOG.warnf("[%s] %s", target(), why);
                Problem.about(e.resource(), Problem.CONFLICT, why).ifPresent(problems::add);
                continue;
            }
            kept.add(e);
        }
        return kept;
    }

    private Map<String, Integer> count(List<Endpoint> current) {
        var m = new TreeMap<String, Integer>();
        for (Endpoint e : current) {
            if (registry.ownerId().equals(e.owner())) m.merge(e.recordType(), e.targets().size(), Integer::sum);
        }
        return m;
    }
}
