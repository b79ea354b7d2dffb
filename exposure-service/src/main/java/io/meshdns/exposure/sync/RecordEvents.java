package io.meshdns.exposure.sync;

import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.source.Problem;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * ExternalDNS's record events ({@code --events-emit}, controller/events.go), from one applied pass: RecordReady per
 * record created or updated, RecordDeleted per record deleted, RecordError per record the provider refused; each on
 * the object that asked for the record, with ExternalDNS's message text. Pure.
 */
final class RecordEvents {

    private RecordEvents() {
    }

    /** The events {@code emit} (reason names) asks for; nothing for a dry run or an outcome that applied nothing. */
    static List<Problem> of(Reconciler.Outcome outcome, String owner, Set<String> emit) {
        if (emit.isEmpty() || !outcome.applied()) return List.of();
        var refused = new HashSet<String>();
        for (Problem p : outcome.problems()) if (Problem.INVALID.equals(p.reason())) refused.add(p.resourceKey());
        var out = new ArrayList<Problem>();
        var c = outcome.changes();
        c.create().forEach(e -> add(out, e, owner, refused, Problem.RECORD_READY, emit));
        c.updateNew().forEach(e -> add(out, e, owner, refused, Problem.RECORD_READY, emit));
        c.delete().forEach(e -> add(out, e, owner, refused, Problem.RECORD_DELETED, emit));
        return out;
    }

    private static void add(List<Problem> out, Endpoint e, String owner, Set<String> refused, String reason, Set<String> emit) {
        // a Problem's key is the resource label the endpoint carries (service/ns/name, gateway/ns/name, …)
        String r = refused.contains(e.resource()) ? Problem.RECORD_ERROR : reason;
        if (!emit.contains(r)) return;
        String message = "(external-dns) record:" + e.dnsName() + ",owner:" + owner + ",type:" + e.recordType() + ",ttl:" + e.ttl()
                + ",targets:" + String.join(",", e.targets());
        Problem.about(e.resource(), r, message).ifPresent(out::add);
    }
}
