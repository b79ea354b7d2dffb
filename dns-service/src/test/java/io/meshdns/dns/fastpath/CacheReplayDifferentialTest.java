package io.meshdns.dns.fastpath;

import io.meshdns.dns.DnsClient;

import io.meshdns.dns.answer.Answerer;
import io.meshdns.dns.answer.ClientInfo;
import io.meshdns.dns.answer.Outcome;
import io.meshdns.dns.answer.Transport;
import io.meshdns.dns.cache.CacheKey;
import io.meshdns.dns.cache.CacheSettings;
import io.meshdns.dns.cache.DnsCache;
import io.meshdns.dns.forward.ForwardPolicy;
import io.meshdns.dns.forward.ForwardSettings;
import io.meshdns.dns.forward.Upstream;
import io.meshdns.dns.forward.UpstreamForwarder;
import io.meshdns.dns.server.ResponseEncoder;
import io.meshdns.dns.snapshot.Snapshot;
import io.meshdns.testsupport.dns.KnotServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.DClass;
import org.xbill.DNS.ExtendedFlags;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cache fast path ({@link CacheReplay}) against the slow path for forwarded names, on one cache
 * and one controlled clock, with a real upstream: Knot serving {@code diff.test} (signed, so DO
 * queries get RRSIGs) with A, AAAA, CNAME chains, several-record RRsets, MX with glue in the
 * additional section, NXDOMAIN and NODATA with SOA, and TXT answers of sizes around the 512 and 1232
 * byte UDP limits and over them. The slow path is what QueryHandler and RequestProcessor do for a
 * forwarded query: {@code forward}, then {@code Answerer.withEdns}, then {@code ResponseEncoder}
 * within the client's UDP limit.
 */
class CacheReplayDifferentialTest {
    private static final int MAX_UDP = 1232;
    private static final String[] TXT_SIZES = {"t300", "t440", "t470", "t480", "t500", "t1000", "t1130", "t1160", "t1200", "t1400", "t3000"};

    @TempDir
    static Path tmp;
    static Vertx vertx;
    static KnotServer knot;

    private final Answerer answerer = new Answerer(MAX_UDP);
    private final ResponseEncoder encoder = new ResponseEncoder(MAX_UDP);
    private final ClientInfo client = new ClientInfo("127.0.0.1", 40000, false, Transport.UDP);
    private final Object snapshot = Snapshot.build(1, List.of());
    private final Object guard = new Object();
    private final AtomicLong clock = new AtomicLong(1_000_000);
    private DnsCache cache;
    private UpstreamForwarder forwarder;
    private CacheReplay replay;
    private AnswerMemo memo;

    @BeforeAll
    static void startUpstream() {
        vertx = Vertx.vertx();
        knot = new KnotServer(tmp.resolve("knot")).signedZone("diff.test", zone());
        knot.start();
    }

    @AfterAll
    static void stopUpstream() {
        knot.close();
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @BeforeEach
    void newForwarder() {
        cache = new DnsCache(CacheSettings.defaults(), clock::get);
        ForwardSettings settings = ForwardSettings.of(List.of(Upstream.parse(knot.address(), "test")))
                .withPolicy(ForwardPolicy.SEQUENTIAL);
        forwarder = new UpstreamForwarder(vertx, settings, cache, new SimpleMeterRegistry()).start();
        replay = new CacheReplay(forwarder, answerer, encoder::udpLimit);
        memo = new AnswerMemo(100_000);
    }

    @AfterEach
    void closeForwarder() {
        forwarder.close();
    }

    /** diff.test: TTLs 300 except {@code short} (5 s); negative TTL min(300, 60) = 60. */
    private static String zone() {
        StringBuilder z = new StringBuilder();
        z.append("$ORIGIN diff.test.\n$TTL 300\n")
                .append("@ IN SOA ns1 hostmaster 1 3600 600 86400 60\n")
                .append("@ IN NS ns1\n")
                .append("ns1 IN A 127.0.0.1\n")
                .append("www IN A 192.0.2.1\n")
                .append("www IN AAAA 2001:db8::1\n")
                .append("c1 IN CNAME c2\nc2 IN CNAME c3\nc3 IN CNAME www\n")
                .append("mx IN MX 10 mail\nmx IN MX 20 mail2\nmail IN A 192.0.2.25\nmail2 IN A 192.0.2.26\nmail2 IN AAAA 2001:db8::26\n")
                .append("short 5 IN A 192.0.2.5\n");
        for (int i = 0; i < 8; i++) {
            z.append("multi IN A 192.0.2.").append(10 + i).append("\n");
            z.append("multi IN AAAA 2001:db8::").append(10 + i).append("\n");
        }
        for (String t : TXT_SIZES) {
            int size = Integer.parseInt(t.substring(1));
            for (int left = size, i = 0; left > 0; i++) {
                int n = Math.min(200, left);
                z.append(t).append(" IN TXT \"").append(i % 10).append("x".repeat(n - 1)).append("\"\n");
                left -= n + 12; // about one RR's overhead next to its text
            }
        }
        return z.toString();
    }

    @Test
    void fastPathBytesEqualSlowPathBytesForVariedForwardedAnswers() throws Exception {
        String[] names = {"www", "c1", "c3", "mx", "multi", "short", "ns1", "nosuch", "deep.nosuch", "mail2", "diff.test."};
        int[] types = {Type.A, Type.AAAA, Type.MX, Type.TXT, Type.CNAME, Type.SOA, Type.NS};
        SplittableRandom random = new SplittableRandom(11);
        int hits = 0;
        int tooBig = 0;
        int expired = 0;
        int[] rcodes = new int[16];
        boolean sawRrsig = false;
        boolean sawAdditional = false;
        for (int n = 0; n < 600; n++) {
            String name;
            int qtype;
            if (random.nextInt(3) == 0) {
                name = TXT_SIZES[random.nextInt(TXT_SIZES.length)] + ".diff.test.";
                qtype = Type.TXT;
            } else {
                String label = names[random.nextInt(names.length)];
                name = label.endsWith(".") ? label : label + ".diff.test.";
                qtype = types[random.nextInt(types.length)];
            }
            int edns = random.nextInt(5); // 0: none, 1: 1232, 2: 4096 with DO, 3: 512, 4: 1400 with DO
            boolean rd = random.nextInt(4) != 0;
            boolean cd = random.nextInt(4) == 0;

            byte[] primer = query(name, qtype, edns, rd, cd, random.nextInt(65536));
            slowAndRemember(primer);
            clock.addAndGet(random.nextInt(3000)); // TTLs count down between the fill and the hit

            byte[] q = query(DnsClient.mixCase(name, random), qtype, edns, rd, cd, random.nextInt(65536));
            AnswerMemo.Hit hit = memo.lookup(snapshot, q);
            assertNotNull(hit, () -> "remembered as forwarded: " + name);
            long hitsBefore = cache.successHits() + cache.denialHits();
            byte[] fast = replay.answer(hit, q, guard);
            assertEquals(hitsBefore + (fast == null ? 0 : 1), cache.successHits() + cache.denialHits(),
                    "a fast answer is one cache hit; a declined one counts nothing (the slow path will)");
            long missesBefore = cache.misses();
            Message full = slowUntruncated(q);
            byte[] slow = slow(q);
            Message slowMessage = new Message(slow);
            if (fast == null) {
                if (cache.misses() > missesBefore) {
                    expired++; // the entry ran out between the primer and this query: the slow path refetched it
                    continue;
                }
                // Otherwise only an answer that does not fit the client's limit leaves the fast path: the slow
                // path then drops the additional section or sets TC.
                assertTrue(full.toWire().length > encoder.limitFor(new Message(q), Transport.UDP),
                        () -> "fast path declined a fitting answer for " + name + " " + Type.string(qtype) + ": " + full);
                tooBig++;
                continue;
            }
            assertArrayEquals(slow, fast, () -> "fast != slow for " + name + " " + Type.string(qtype) + " edns " + edns);
            hits++;
            rcodes[slowMessage.getRcode()]++;
            sawRrsig |= !slowMessage.getSection(Section.ANSWER).stream().filter(r -> r.getType() == Type.RRSIG).toList().isEmpty();
            sawAdditional |= slowMessage.getSection(Section.ADDITIONAL).stream().anyMatch(r -> r.getType() != Type.OPT);
        }
        assertTrue(hits > 400, "most queries take the fast path: " + hits + " (too big " + tooBig + ", expired " + expired + ")");
        assertTrue(tooBig > 10, "the set reaches past the UDP limits: " + tooBig);
        assertTrue(rcodes[Rcode.NOERROR] > 0 && rcodes[Rcode.NXDOMAIN] > 0, "answers and NXDOMAIN");
        assertTrue(sawRrsig, "DO answers carry RRSIGs");
        assertTrue(sawAdditional, "answers with an additional section");
    }

    @Test
    void answersCarryOurOptEchoingDoAndTheClientsCase() throws Exception {
        byte[] primer = query("www.diff.test.", Type.A, 2, true, false, 1);
        slowAndRemember(primer);
        byte[] q = query("WwW.DiFf.TeSt.", Type.A, 2, true, false, 4242);
        Message m = new Message(replay.answer(memo.lookup(snapshot, q), q, guard));
        assertEquals(4242, m.getHeader().getID());
        assertEquals("WwW.DiFf.TeSt.", m.getQuestion().getName().toString());
        assertTrue(m.getHeader().getFlag(Flags.RA) && !m.getHeader().getFlag(Flags.AA));
        OPTRecord opt = m.getOPT();
        assertNotNull(opt, "a query with OPT gets ours");
        assertEquals(MAX_UDP, opt.getPayloadSize());
        assertEquals(ExtendedFlags.DO, opt.getFlags() & ExtendedFlags.DO, "DO echoed");
        assertTrue(m.getSection(Section.ANSWER).stream().anyMatch(r -> r.getType() == Type.RRSIG));
    }

    @Test
    void expiredAndStaleEntriesGuardChangesAndOtherKeysTakeTheSlowPath() throws Exception {
        byte[] primer = query("short.diff.test.", Type.A, 1, true, false, 1);
        slowAndRemember(primer);
        AnswerMemo.Hit hit = memo.lookup(snapshot, primer);
        assertNotNull(replay.answer(hit, primer, guard));
        assertNull(replay.answer(hit, primer, new Object()), "another mesh index: the slow path decides again");
        assertNull(memo.lookup(Snapshot.build(2, List.of()), primer), "another snapshot: nothing remembered");
        assertNull(memo.lookup(snapshot, query("short.diff.test.", Type.A, 2, true, false, 1)), "another OPT is another key");

        clock.addAndGet(5_000); // the 5 s TTL is over: the entry is stale (servable by the slow path only)
        long hits = cache.successHits();
        long misses = cache.misses();
        assertNull(replay.answer(hit, primer, guard), "an expired entry is the slow path's");
        assertEquals(hits, cache.successHits());
        assertEquals(misses, cache.misses(), "and counted there, not here");

        knot.stop(); // every upstream attempt fails: the slow path serves the stale entry (RFC 8767)
        try {
            Message stale = new Message(slow(primer));
            assertEquals(30, stale.getSection(Section.ANSWER).get(0).getTTL(), "stale-ttl");
            assertEquals(1, cache.servedStale());
            assertNull(replay.answer(hit, primer, guard), "a stale answer is never served by the fast path");
        } finally {
            knot.start();
        }
        slow(primer); // refilled from the upstream
        byte[] again = replay.answer(hit, primer, guard);
        assertNotNull(again, "fresh again");
        assertArrayEquals(slow(primer), again);
    }

    /** The slow path's bytes; when the query was forwarded, remembered as the RequestProcessor does. */
    private byte[] slowAndRemember(byte[] packet) throws Exception {
        byte[] wire = slow(packet);
        Message query = new Message(packet);
        memo.rememberForwarded(snapshot, packet, new AnswerMemo.Forwarded(CacheKey.of(query), guard),
                new Message(wire).getRcode(), query.getQuestion().getType());
        return wire;
    }

    private byte[] slow(byte[] packet) throws Exception {
        Message query = new Message(packet);
        return encoder.encode(slowUntruncated(packet), encoder.limitFor(query, Transport.UDP));
    }

    /** The slow path's response before the encoder fits it to the client's limit. */
    private Message slowUntruncated(byte[] packet) throws Exception {
        Message query = new Message(packet);
        assertEquals(Outcome.FORWARD, answerer.answer((Snapshot) snapshot, query, client));
        Message response = forwarder.forward(query).toCompletableFuture().get(10, TimeUnit.SECONDS);
        return answerer.withEdns(query, response);
    }

    private static byte[] query(String name, int qtype, int edns, boolean rd, boolean cd, int id) throws Exception {
        Message m = Message.newQuery(Record.newRecord(Name.fromString(name), qtype, DClass.IN));
        m.getHeader().setID(id);
        if (!rd) {
            m.getHeader().unsetFlag(Flags.RD);
        }
        if (cd) {
            m.getHeader().setFlag(Flags.CD);
        }
        switch (edns) {
            case 1 -> m.addRecord(new OPTRecord(1232, 0, 0), Section.ADDITIONAL);
            case 2 -> m.addRecord(new OPTRecord(4096, 0, 0, ExtendedFlags.DO), Section.ADDITIONAL);
            case 3 -> m.addRecord(new OPTRecord(512, 0, 0), Section.ADDITIONAL);
            case 4 -> m.addRecord(new OPTRecord(1400, 0, 0, ExtendedFlags.DO), Section.ADDITIONAL);
            default -> {
            }
        }
        return m.toWire();
    }
}
