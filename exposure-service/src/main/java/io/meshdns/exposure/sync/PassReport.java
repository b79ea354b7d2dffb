package io.meshdns.exposure.sync;

import io.meshdns.exposure.plan.Changes;
import io.meshdns.exposure.source.Problem;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What the last reconcile pass did, as the status page shows it: published once at the end of each pass,
 * immutable, so a reader never sees a pass half way. {@code plan} is this pass's changes, one line each;
 * {@code lastChangedAt}/{@code lastChanges} keep the most recent pass that changed something (a steady state
 * plans nothing, and the operator still wants to see what was last written).
 *
 * @param problems the objects not (fully) published and why: conflicts, provider refusals, invalid annotations
 * @param conflicts the plan's own conflict lines (owner mismatch, several resources wanting one name, ...)
 */
public record PassReport(Instant finishedAt, Duration took, int targets, int failedTargets, boolean dryRun, List<String> plan,
                         List<String> conflicts, List<String> problems, int ownedRecords, Instant lastChangedAt,
                         List<String> lastChanges) {

    /** Before the first pass. */
    public static final PassReport NONE = new PassReport(null, Duration.ZERO, 0, 0, false, List.of(), List.of(), List.of(), 0, null,
            List.of());

    public PassReport {
        plan = List.copyOf(plan);
        conflicts = List.copyOf(conflicts);
        problems = List.copyOf(problems);
        lastChanges = List.copyOf(lastChanges);
    }

    /** "ok", or how many targets failed. */
    public String result() {
        if (finishedAt == null) return "no pass yet";
        return failedTargets == 0 ? "ok (" + targets + " target" + (targets == 1 ? "" : "s") + ")"
                : "failed on " + failedTargets + " of " + targets + " targets";
    }

    /** The report of a pass that started at {@code startedNanos} ({@link System#nanoTime()}), after {@code previous}. */
    static PassReport after(PassReport previous, long startedNanos, int targets, int failed, List<Reconciler.Outcome> outcomes,
                            List<Problem> problems) {
        var plan = new ArrayList<String>();
        var conflicts = new ArrayList<String>();
        int owned = 0;
        boolean dryRun = false;
        for (Reconciler.Outcome o : outcomes) {
            plan.addAll(lines(o.changes()));
            conflicts.addAll(o.conflicts());
            owned += o.recordsByType().values().stream().mapToInt(Integer::intValue).sum();
            dryRun |= !o.applied();
        }
        var wrong = new ArrayList<String>();
        for (Problem p : problems) {
            if (!p.normal()) wrong.add(p.reason() + " " + p.kind() + " " + p.namespace() + "/" + p.name() + ": " + p.message());
        }
        Instant now = Instant.now();
        boolean changed = !plan.isEmpty();
        return new PassReport(now, Duration.ofNanos(System.nanoTime() - startedNanos), targets, failed, dryRun, plan, conflicts, wrong,
                owned, changed ? now : previous.lastChangedAt(), changed ? plan : previous.lastChanges());
    }

    private static List<String> lines(Changes c) {
        var out = new ArrayList<String>();
        c.create().forEach(e -> out.add("CREATE " + e));
        for (int i = 0; i < c.updateNew().size(); i++) out.add("UPDATE " + c.updateOld().get(i) + " -> " + c.updateNew().get(i));
        c.delete().forEach(e -> out.add("DELETE " + e));
        return out;
    }
}
