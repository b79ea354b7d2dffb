package io.meshdns.exposure.sync;

import io.meshdns.exposure.provider.ProviderException;
import io.meshdns.exposure.source.Problem;
import io.meshdns.exposure.source.SourceOutput;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code meshdns.exposure.once=true}: one pass over every target, the plan printed, and an exit
 * status: 0 = every target reconciled and no object had a problem, 1 = a target failed (unreachable,
 * refused), 3 = the pass went through but some objects were invalid or conflicting (see the lines);
 * 2 stays what it is for every service: a configuration error at start.
 * With {@code dry-run=true} the plan is printed and nothing is written.
 */
final class OncePass {

    static final int OK = 0;
    static final int TARGET_FAILED = 1;
    static final int OBJECT_PROBLEMS = 3;

    private OncePass() {
    }

    static int run(DesiredSources sources, List<Reconciler> reconcilers, boolean dryRun, PrintStream out) {
        sources.start();
        SourceOutput output = sources.collect();
        var desired = output.toDesired();
        var problems = new ArrayList<Problem>(output.problems());
        boolean failed = false;
        out.printf("meshdns exposure: one pass%s over %d desired RRsets%n", dryRun ? " (dry-run: nothing written)" : "", desired.endpoints().size());
        for (Reconciler r : reconcilers) {
            try {
                var o = r.reconcile(desired);
                out.printf("[%s] %s: %s%n", r.target(), o.applied() ? "applied" : "plan", o.changes().describe());
                o.conflicts().forEach(c -> out.printf("[%s]   not applied: %s%n", r.target(), c));
                problems.addAll(o.problems());
            } catch (ProviderException | RuntimeException e) {
                failed = true;
                out.printf("[%s] FAILED: %s%n", r.target(), e.getMessage());
            }
        }
        for (Problem p : problems) {
            out.printf("%s %s/%s: %s: %s%n", p.kind(), p.namespace(), p.name(), p.reason(), p.message());
        }
        return failed ? TARGET_FAILED : problems.isEmpty() ? OK : OBJECT_PROBLEMS;
    }
}
