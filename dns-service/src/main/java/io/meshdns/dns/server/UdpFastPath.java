package io.meshdns.dns.server;

import io.meshdns.dns.answer.QueryContext;
import io.meshdns.dns.answer.Transport;
import io.meshdns.dns.cache.CacheKey;
import io.meshdns.dns.fastpath.AnswerMemo;
import io.meshdns.dns.fastpath.CacheReplay;
import io.meshdns.dns.kubernetes.MeshNaming;
import io.meshdns.dns.metrics.DnsMetrics;
import io.meshdns.dns.metrics.QueryBits;
import io.meshdns.dns.snapshot.Snapshot;
import io.meshdns.dns.snapshot.SnapshotStore;
import org.xbill.DNS.Message;
import org.xbill.DNS.Opcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The UDP memo step of the request path, both of its ends: {@link #answer} replays a plain query already answered
 * from the current snapshot (ID and question case patched, see {@link AnswerMemo}) or, for a name the snapshot
 * forwards, the forwarder's fresh cached answer ({@link CacheReplay}); {@link #remember} fills the memo from what the
 * slow path just sent. Both ends live here so that what may be remembered and what is replayed are read together.
 * Counts its answers in the same meters as the slow path.
 */
final class UdpFastPath {
    /** The largest answer the fast path can write: a UDP datagram's payload limit. */
    static final int MAX_ANSWER = 65_535;

    private final AnswerMemo memo;
    /** Null without a forwarder cache: forwarded names then always take the slow path. */
    private final CacheReplay replay;
    private final SnapshotStore store;
    private final MeshNaming mesh;
    private final DnsMetrics metrics;

    UdpFastPath(AnswerMemo memo, CacheReplay replay, SnapshotStore store, MeshNaming mesh, DnsMetrics metrics) {
        this.memo = memo;
        this.replay = replay;
        this.store = store;
        this.mesh = mesh;
        this.metrics = metrics;
    }

    /**
     * Answers the query in the first {@code length} bytes of {@code packet} into {@code out} (at least
     * {@link #MAX_ANSWER} bytes) from offset 0 and returns the answer's length, or -1 for the slow path. The UDP
     * listener reuses both buffers, so a remembered authoritative answer costs no allocation here (a forwarded one
     * still copies the query once).
     */
    int answer(byte[] packet, int length, boolean ipv6, byte[] out) {
        long started = System.nanoTime();
        Snapshot snapshot = store.current();
        AnswerMemo.Entry e = memo.find(snapshot, packet, length);
        if (e == null) {
            return -1;
        }
        int answerLength;
        if (e.forwarded() == null) {
            answerLength = e.answerInto(packet, out);
        } else {
            byte[] query = Arrays.copyOf(packet, length);
            byte[] response = replay == null ? null
                    : replay.answer(new AnswerMemo.Hit(null, e, e.questionEnd()), query, snapshot.mesh());
            if (response == null || response.length > out.length) {
                return -1;
            }
            System.arraycopy(response, 0, out, 0, response.length);
            answerLength = response.length;
            int rcode = response[3] & 0x0F; // the cache's answer now, which may differ from the remembered one
            if (rcode != e.rcode()) {
                metrics.request(RequestProcessor.NO_ZONE, Transport.UDP.label(), ipv6, e.qtype(), rcode,
                        System.nanoTime() - started, length, answerLength, QueryBits.dnssecOk(query));
                return answerLength;
            }
        }
        DnsMetrics.Meters meters = (DnsMetrics.Meters) e.meters(ipv6);
        if (meters == null) {
            meters = metrics.meters(e.zone(), Transport.UDP.label(), ipv6, e.qtype(), e.rcode());
            e.meters(ipv6, meters);
        }
        meters.record(System.nanoTime() - started, length, answerLength, QueryBits.dnssecOk(packet, length));
        return answerLength;
    }

    /**
     * Remembers the slow path's answer {@code wire} to {@code packet} when a later identical query may be answered
     * with it. The memo keeps answers per snapshot (an answer from a replaced one is dropped there) and only those
     * that depend on nothing but the query bytes and the snapshot: a name whose exportTo makes the answer depend on
     * the client's namespace is never remembered, so a hit can never show one client another's answer.
     */
    void remember(QueryContext ctx, byte[] packet, byte[] wire, RequestHandler.Reply reply) {
        if (ctx.client().transport() != Transport.UDP || !clientIndependent(ctx)) {
            return;
        }
        Message query = ctx.query();
        Snapshot snapshot = ctx.snapshot();
        Record question = query.getQuestion();
        if (reply.forwarded()) {
            if (replay != null && question != null && query.getHeader().getOpcode() == Opcode.QUERY) {
                memo.rememberForwarded(snapshot, packet, new AnswerMemo.Forwarded(CacheKey.of(query), snapshot.mesh()),
                        reply.response().getRcode(), question.getType());
            }
        } else if (replayable(query, reply)) {
            memo.remember(snapshot, packet, wire, reply.zone(), reply.response().getRcode(), question.getType());
        }
    }

    /** False when the answer may differ per client namespace (the name is exported to only some namespaces). */
    private static boolean clientIndependent(QueryContext ctx) {
        Record question = ctx.query().getQuestion();
        return question == null || ctx.mesh().exportScopeOf(question.getName()) == null;
    }

    /**
     * An answer the fast path may replay for the same query bytes: a QUERY answered from one of our
     * zones (not forwarded: that is labelled ".", like hosts data) in a way that reads no client (the mesh
     * hook says which of its answers do), and with no RRset of several records (dnsjava rotates those on
     * every answer).
     */
    private boolean replayable(Message query, RequestHandler.Reply reply) {
        Message response = reply.response();
        if (query.getHeader().getOpcode() != Opcode.QUERY || RequestProcessor.NO_ZONE.equals(reply.zone())
                || !mesh.hook().replayable(reply.zone(), reply.rule(), response.getRcode(), query.getQuestion().getName())) {
            return false;
        }
        for (int section : new int[] {Section.ANSWER, Section.AUTHORITY, Section.ADDITIONAL}) {
            List<Record> records = response.getSection(section);
            if (records.size() < 2) {
                continue;
            }
            Set<String> rrsets = new HashSet<>();
            for (Record r : records) {
                if (!rrsets.add(r.getName().toString().toLowerCase(Locale.ROOT) + "/" + r.getType())) {
                    return false;
                }
            }
        }
        return true;
    }
}
