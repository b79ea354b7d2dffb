package io.meshdns.dns.server;

import io.meshdns.dns.answer.ClientInfo;
import io.meshdns.dns.answer.QueryContext;
import org.xbill.DNS.Message;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Extension point for AXFR/IXFR over TCP (RFC 5936). Without a bean of this type, transfers are
 * REFUSED over TCP and FORMERR over UDP. A transfer may span several messages; the TCP listener
 * writes each one length-framed, in order.
 */
public interface ZoneTransferHandler {
    CompletionStage<List<Message>> transfer(Message request, ClientInfo client);

    /** Like {@link #transfer(Message, ClientInfo)}, with the request's original bytes (for TSIG). */
    default CompletionStage<List<Message>> transfer(Message request, byte[] wire, ClientInfo client) {
        return transfer(request, client);
    }

    /**
     * Like {@link #transfer(Message, byte[], ClientInfo)}, with the request's context, which carries the TSIG
     * verdict ({@link QueryContext#tsig()}: unsigned or verified; a failed TSIG never gets here). The request path
     * calls this one. The stage must never fail: an error becomes a message with an RCODE.
     */
    default CompletionStage<List<Message>> transfer(QueryContext ctx, byte[] wire) {
        return transfer(ctx.query(), wire, ctx.client());
    }
}
