package io.meshdns.dns.server;

import io.meshdns.dns.answer.Answerer;
import io.meshdns.dns.answer.ClientInfo;
import io.meshdns.dns.answer.Outcome;
import io.meshdns.dns.answer.QueryContext;
import io.meshdns.dns.forward.Forwarder;
import io.meshdns.dns.kubernetes.MeshNaming;
import io.meshdns.dns.kubernetes.MeshQueryHook;
import io.meshdns.dns.snapshot.SnapshotStore;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.xbill.DNS.Message;
import org.xbill.DNS.Opcode;
import org.xbill.DNS.Rcode;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Opcode QUERY: the {@link Answerer} on the current snapshot, and the {@link Forwarder} for names
 * that are not ours. Without a Forwarder bean (dns-service built without forwarding), such names
 * are REFUSED: we never pretend to know a name we do not.
 */
@Singleton // no client proxy: called on every query (a proxy looked the instance up on each call)
public class QueryHandler implements RequestHandler {
    private static final String NO_ZONE = ".";

    @Inject
    SnapshotStore store;
    @Inject
    Instance<Forwarder> forwarder;
    @Inject
    AnswererHolder answerer;
    @Inject
    MeshNaming mesh;
    /** {@link #forwarder()}'s answer once known (a benign race: every thread resolves the same singleton). */
    private volatile Optional<Forwarder> forwarderBean;

    @Override
    public int opcode() {
        return Opcode.QUERY;
    }

    @Override
    public CompletionStage<Reply> handle(Message request, ClientInfo client) {
        return handle(new QueryContext(store.current(), client, request), null);
    }

    @Override
    public CompletionStage<Reply> handle(QueryContext ctx, byte[] wire) {
        Message request = ctx.query();
        Outcome outcome = answerer.get().answer(ctx);
        if (outcome instanceof Outcome.Answer answer) {
            // Mesh naming hook (placeholder, insecure pods, autopath, ExternalName chase, spread): null = unchanged.
            CompletionStage<Message> adjusted = mesh.hook().adjust(ctx, answer.zone(), answer.response(), q -> resolve(ctx.withQuery(q)));
            if (adjusted == null) {
                return CompletableFuture.completedFuture(new Reply(answer.response(), answer.zone(), false, answer.rule()));
            }
            return adjusted.thenApply(response -> new Reply(response, answer.zone(), false,
                    MeshQueryHook.ruleOf(answer.rule(), answer.response(), response)));
        }
        // Our OPT goes on the forwarder's answer here, not in notOurs: the hook's sub-queries merge theirs.
        return notOurs(ctx).thenApply(reply -> reply.forwarded()
                ? new Reply(answerer.get().withEdns(request, reply.response()), NO_ZONE, true, reply.rule()) : reply);
    }

    /** The pipeline without the mesh hook, for the hook's own sub-queries (autopath, CNAME targets), on the same snapshot. */
    private CompletionStage<Message> resolve(QueryContext ctx) {
        Outcome outcome = answerer.get().answer(ctx);
        if (outcome instanceof Outcome.Answer answer) {
            return CompletableFuture.completedFuture(answer.response());
        }
        return notOurs(ctx).thenApply(Reply::response);
    }

    /**
     * The forwarder bean, or null without one; looked up once, on the first name that is not ours (an {@link Instance}
     * lookup on every forwarded query was 0.4 % of its CPU in the profile).
     */
    private Forwarder forwarder() {
        Optional<Forwarder> resolved = forwarderBean;
        if (resolved == null) {
            resolved = forwarder.isResolvable() ? Optional.of(forwarder.get()) : Optional.empty();
            forwarderBean = resolved;
        }
        return resolved.orElse(null);
    }

    /** A name no zone answers: a wildcard ServiceEntry host (the mesh hook), else the forwarder, else REFUSED. */
    private CompletionStage<Reply> notOurs(QueryContext ctx) {
        Message request = ctx.query();
        Message wildcardHost = mesh.hook().beforeForward(ctx, () -> answerer.get().error(request, Rcode.NOERROR));
        if (wildcardHost != null) {
            return CompletableFuture.completedFuture(new Reply(wildcardHost, NO_ZONE, false, Outcome.Rule.WILDCARD_HOST));
        }
        Forwarder upstreams = forwarder();
        if (upstreams != null) {
            return upstreams.resolve(request).thenApply(r -> new Reply(r.response(), NO_ZONE, true,
                    r.cached() ? Outcome.Rule.FORWARDED_CACHED : Outcome.Rule.FORWARDED));
        }
        return CompletableFuture.completedFuture(new Reply(answerer.get().error(request, Rcode.REFUSED), NO_ZONE));
    }
}
