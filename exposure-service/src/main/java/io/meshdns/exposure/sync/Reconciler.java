package io.meshdns.exposure.sync;

import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.plan.Changes;
import io.meshdns.exposure.plan.DomainFilter;
import io.meshdns.exposure.plan.Plan;
import io.meshdns.exposure.plan.Policy;
import io.meshdns.exposure.provider.ProviderException;
import io.meshdns.exposure.provider.RecordOp;
import io.meshdns.exposure.registry.TxtRegistry;
import io.meshdns.exposure.source.Desired;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jboss.logging.Logger;

/**
 * One reconcile pass against one provider target: read (registry) → plan (pure) → apply.
 * Dry-run lives here and only here: the plan is logged and nothing is written.
 */
public final class Reconciler {

    private static final Logger LOG = Logger.getLogger(Reconciler.class);

    private final TxtRegistry registry;
    private final Policy policy;
    private final DomainFilter filter;
    private final boolean dryRun;

    public Reconciler(TxtRegistry registry, Policy policy, DomainFilter filter, boolean dryRun) {
        this.registry = registry;
        this.policy = policy;
        this.filter = filter;
        this.dryRun = dryRun;
    }

    /**
     * @param recordsByType our (owned) records after the pass, by type, for the records gauge.
     */
    public record Outcome(Changes changes, List<RecordOp> ops, List<String> conflicts, int ownerMismatches,
                          boolean applied, Map<String, Integer> recordsByType) {
    }

    public String target() {
        return registry.provider().describe();
    }

    public Outcome reconcile(Desired desired) throws ProviderException {
        TxtRegistry.View view = registry.records();
        Plan.Result result = Plan.calculate(new Plan.Input(view.current(), desired.endpoints(), policy, filter,
                registry.ownerId(), desired.erroredResources()));
        var ops = new ArrayList<RecordOp>(view.upgrades());
        ops.addAll(registry.operations(view, result.changes()));
        result.conflicts().forEach(c -> LOG.debugf("[%s] %s", target(), c));
        if (dryRun) {
            LOG.infof("[%s] DRY-RUN plan (policy %s, owner %s): %s%s", target(), policy.configName(), registry.ownerId(),
                    result.changes().describe(), view.upgrades().isEmpty() ? "" : "\n  + " + view.upgrades().size() + " ownership TXT upgrades");
            return new Outcome(result.changes(), ops, result.conflicts(), result.ownerMismatches(), false, count(view.current()));
        }
        if (!ops.isEmpty()) {
            LOG.infof("[%s] applying %d changes (%d record operations): %s", target(), result.changes().size(), ops.size(),
                    result.changes().describe());
            registry.apply(ops);
        }
        return new Outcome(result.changes(), ops, result.conflicts(), result.ownerMismatches(), true, count(view.current()));
    }

    private Map<String, Integer> count(List<Endpoint> current) {
        var m = new TreeMap<String, Integer>();
        for (Endpoint e : current) {
            if (registry.ownerId().equals(e.owner())) m.merge(e.recordType(), e.targets().size(), Integer::sum);
        }
        return m;
    }
}
