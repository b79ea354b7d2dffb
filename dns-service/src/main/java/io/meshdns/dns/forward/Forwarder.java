package io.meshdns.dns.forward;

import org.xbill.DNS.Message;

import java.util.concurrent.CompletionStage;

/**
 * Resolves a query that no local zone answers: the cache first, then the upstream pool (or a
 * per-zone forward). It never completes exceptionally: a failure becomes a SERVFAIL (or a stale
 * answer, RFC 8767) and overload becomes REFUSED. The response carries the query's ID and question.
 */
public interface Forwarder {
    CompletionStage<Message> forward(Message query);
}
