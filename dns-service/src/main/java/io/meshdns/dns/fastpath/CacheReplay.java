package io.meshdns.dns.fastpath;

import io.meshdns.dns.answer.Answerer;
import io.meshdns.dns.forward.Forwarder;
import org.xbill.DNS.Section;

import java.util.function.IntUnaryOperator;

/**
 * The UDP fast path for forwarded names: answers a query the {@link AnswerMemo} remembered as
 * {@linkplain AnswerMemo#rememberForwarded forwarded} straight from the forwarder's cache, as bytes,
 * with no dnsjava {@code Message} parsed or built. Thread-safe; no I/O.
 *
 * <p>It must send exactly what the slow path would send for the same cache state and clock (parse →
 * Answerer says "forward" → {@code Forwarder.forward}: cache hit rendered and parsed →
 * {@code Answerer.withEdns} adds our OPT → {@code ResponseEncoder} within the client's UDP limit),
 * so it reproduces those steps on bytes: the cache entry rendered for this query (ID, RD/CD, question
 * case, TTLs counted down), then the OPT that {@code withEdns} adds ({@code Answerer.ourOpt}, encoded
 * once) when the query had one, within the limit {@code ResponseEncoder.udpLimit} gives. Whatever the slow path would do differently falls back to
 * it (null): a guard that changed, a loop-probe name, no fresh entry (miss, expired, stale), or an
 * answer longer than the client's limit (the slow path drops the additional section or sets TC).
 * CacheReplayDifferentialTest holds the two paths to byte equality against a real upstream.
 */
public final class CacheReplay {
    private static final int DO_BIT = 0x80; // high byte of the OPT flags

    private final Forwarder forwarder;
    private final IntUnaryOperator udpLimit;
    private final byte[] opt;
    private final byte[] optDo;

    /**
     * {@code answerer}: whose OPT the slow path adds (encoded here once, without and with DO);
     * {@code udpLimit}: the slow path's UDP size limit for an advertised payload (negative: no OPT).
     */
    public CacheReplay(Forwarder forwarder, Answerer answerer, IntUnaryOperator udpLimit) {
        this.forwarder = forwarder;
        this.udpLimit = udpLimit;
        this.opt = answerer.ourOpt(false).toWire(Section.ADDITIONAL);
        this.optDo = answerer.ourOpt(true).toWire(Section.ADDITIONAL);
    }

    /**
     * The answer to {@code query} for a forwarded memo {@code hit} (from {@link AnswerMemo#lookup} on
     * the same bytes), or null to take the slow path. {@code guard} is the caller's current value of
     * {@link AnswerMemo.Forwarded#guard()}.
     */
    public byte[] answer(AnswerMemo.Hit hit, byte[] query, Object guard) {
        AnswerMemo.Forwarded forwarded = hit.entry().forwarded();
        if (forwarded == null || forwarded.guard() != guard) {
            return null;
        }
        int questionEnd = hit.questionEnd();
        byte[] additional = null;
        int payload = -1;
        if (query[11] != 0) { // AnswerMemo admitted it: one option-less OPT right after the question
            if (query[questionEnd + 6] != 0) {
                return null; // EDNS version != 0: BADVERS is the Answerer's (never remembered as forwarded)
            }
            payload = ((query[questionEnd + 3] & 0xFF) << 8) | (query[questionEnd + 4] & 0xFF);
            additional = (query[questionEnd + 7] & DO_BIT) != 0 ? optDo : opt;
        }
        return forwarder.cachedAnswerWire(forwarded.cacheKey(), query, questionEnd - 4 - 12, additional,
                udpLimit.applyAsInt(payload));
    }
}
