package io.meshdns.dns.forward;

import io.meshdns.dns.cache.CacheKey;
import org.xbill.DNS.Message;

import java.util.concurrent.CompletionStage;

/**
 * Resolves a query that no local zone answers: the cache first, then the upstream pool (or a
 * per-zone forward). It never completes exceptionally: a failure becomes a SERVFAIL (or a stale
 * answer, RFC 8767) and overload becomes REFUSED. The response carries the query's ID and question.
 */
public interface Forwarder {
    CompletionStage<Message> forward(Message query);

    /** A forwarded response and whether the cache gave it without asking an upstream. */
    record Result(Message response, boolean cached) {
    }

    /** Like {@link #forward}, telling a cache hit from an upstream's answer (for the rule an answer reports). */
    default CompletionStage<Result> resolve(Message query) {
        return forward(query).thenApply(m -> new Result(m, false));
    }

    /**
     * The cache's fresh answer to the wire query {@code query} under {@code key}, ready to send (see
     * {@link UpstreamForwarder#cachedAnswerWire}); null when {@link #forward} must answer. A forwarder without
     * a cache always returns null.
     */
    default byte[] cachedAnswerWire(CacheKey key, byte[] query, int nameLength, byte[] additional, int maxLength) {
        return null;
    }
}
