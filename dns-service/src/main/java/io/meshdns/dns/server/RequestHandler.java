package io.meshdns.dns.server;

import io.meshdns.dns.answer.ClientInfo;
import org.xbill.DNS.Message;

import java.util.concurrent.CompletionStage;

/**
 * Serves one DNS opcode. {@link RequestProcessor} collects every CDI bean of this type and
 * dispatches on {@link #opcode()}; an opcode without a handler is answered NOTIMP. To add UPDATE
 * (RFC 2136) or NOTIFY, ship an {@code @ApplicationScoped} bean implementing this interface.
 *
 * <p>Handlers run on a Vert.x event loop: they must not block. Long work returns an incomplete stage.
 */
public interface RequestHandler {

    /** The opcode served, e.g. {@link org.xbill.DNS.Opcode#QUERY}. */
    int opcode();

    /**
     * Produces the response to {@code request}. The stage must never fail: errors become an RCODE.
     * {@link Reply#zone()} labels the metrics ({@code "."} when no zone applies).
     */
    CompletionStage<Reply> handle(Message request, ClientInfo client);

    /**
     * Like {@link #handle(Message, ClientInfo)}, with the request exactly as received: TSIG (RFC 8945)
     * is verified over the original bytes. The listeners call this one; override it when you need them.
     */
    default CompletionStage<Reply> handle(Message request, byte[] wire, ClientInfo client) {
        return handle(request, client);
    }

    /**
     * Like {@link #handle(Message, byte[], ClientInfo)}, with the request's context: the snapshot read once
     * when it arrived (with its mesh index) and the client. {@link RequestProcessor} calls this one; handlers
     * that answer from the snapshot override it so that every step sees the same snapshot.
     */
    default CompletionStage<Reply> handle(io.meshdns.dns.answer.QueryContext ctx, byte[] wire) {
        return handle(ctx.query(), wire, ctx.client());
    }

    /**
     * A response plus the zone it came from, for metrics and the query log. {@code forwarded}: the
     * response is the {@code Forwarder}'s (not ours, not hosts data, not the mesh hook's), so the
     * UDP fast path may answer the same query from the forwarder's cache next time. {@code rule}: which rule
     * produced the answer (for an operator's "explain"; QUERY answers set it, other opcodes say PROTOCOL).
     */
    record Reply(Message response, String zone, boolean forwarded, io.meshdns.dns.answer.Outcome.Rule rule) {
        public Reply(Message response, String zone) {
            this(response, zone, false);
        }

        public Reply(Message response, String zone, boolean forwarded) {
            this(response, zone, forwarded, forwarded ? io.meshdns.dns.answer.Outcome.Rule.FORWARDED : io.meshdns.dns.answer.Outcome.Rule.PROTOCOL);
        }
    }
}
