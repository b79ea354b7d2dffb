package io.meshdns.dns.fastpath;

import io.meshdns.dns.forward.UpstreamForwarder;

/**
 * The UDP fast path for forwarded names: answers a query the {@link AnswerMemo} remembered as
 * {@linkplain AnswerMemo#rememberForwarded forwarded} straight from the forwarder's cache, as bytes,
 * with no dnsjava {@code Message} parsed or built. Thread-safe; no I/O.
 *
 * <p>It must send exactly what the slow path would send for the same cache state and clock (parse →
 * Answerer says "forward" → {@code UpstreamForwarder.forward}: cache hit rendered and parsed →
 * {@code Answerer.withEdns} adds our OPT → {@code ResponseEncoder} within the client's UDP limit),
 * so it reproduces those steps on bytes: the cache entry rendered for this query (ID, RD/CD, question
 * case, TTLs counted down), then the OPT that {@code withEdns} adds (our payload size, version 0, the
 * query's DO bit) when the query had one. Whatever the slow path would do differently falls back to
 * it (null): a guard that changed, a loop-probe name, no fresh entry (miss, expired, stale), or an
 * answer longer than the client's limit (the slow path drops the additional section or sets TC).
 * CacheReplayDifferentialTest holds the two paths to byte equality against a real upstream.
 */
public final class CacheReplay {
    private static final int NO_EDNS_LIMIT = 512;
    private static final int DO_BIT = 0x80; // high byte of the OPT flags

    private final UpstreamForwarder forwarder;
    private final int maxUdpPayload;
    private final byte[] opt;
    private final byte[] optDo;

    /** {@code maxUdpPayload}: meshdns.dns.edns.max-udp-payload, what our OPT advertises and the UDP cap. */
    public CacheReplay(UpstreamForwarder forwarder, int maxUdpPayload) {
        this.forwarder = forwarder;
        this.maxUdpPayload = maxUdpPayload;
        this.opt = opt(maxUdpPayload, false);
        this.optDo = opt(maxUdpPayload, true);
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
        int limit = NO_EDNS_LIMIT;
        if (query[11] != 0) { // AnswerMemo admitted it: one option-less OPT right after the question
            if (query[questionEnd + 6] != 0) {
                return null; // EDNS version != 0: BADVERS is the Answerer's (never remembered as forwarded)
            }
            int payload = ((query[questionEnd + 3] & 0xFF) << 8) | (query[questionEnd + 4] & 0xFF);
            limit = Math.max(NO_EDNS_LIMIT, Math.min(payload, maxUdpPayload));
            additional = (query[questionEnd + 7] & DO_BIT) != 0 ? optDo : opt;
        }
        return forwarder.cachedAnswerWire(forwarded.cacheKey(), query, questionEnd - 4 - 12, additional, limit);
    }

    /** Our OPT in wire form: root owner, type 41, class = payload size, TTL = xrcode 0, version 0, flags; no rdata. */
    private static byte[] opt(int payload, boolean dnssecOk) {
        return new byte[] {0, 0, 41, (byte) (payload >>> 8), (byte) payload, 0, 0, (byte) (dnssecOk ? DO_BIT : 0), 0, 0, 0};
    }
}
