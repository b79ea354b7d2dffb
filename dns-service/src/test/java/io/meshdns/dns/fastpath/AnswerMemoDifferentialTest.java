package io.meshdns.dns.fastpath;

import io.meshdns.dns.DnsClient;

import io.meshdns.dns.answer.Answerer;
import io.meshdns.dns.cache.CacheKey;
import io.meshdns.dns.answer.ClientInfo;
import io.meshdns.dns.answer.Outcome;
import io.meshdns.dns.answer.Transport;
import io.meshdns.dns.server.ResponseEncoder;
import io.meshdns.dns.snapshot.Snapshot;
import io.meshdns.dns.snapshot.ZoneContent;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.EDNSOption;
import org.xbill.DNS.Flags;
import org.xbill.DNS.GenericEDNSOption;
import org.xbill.DNS.Message;
import org.xbill.DNS.NSRecord;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

import io.meshdns.dns.zonefile.ZoneFileParser;
import io.meshdns.testsupport.Commands;
import org.junit.jupiter.api.io.TempDir;

import java.lang.ref.WeakReference;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fast path against the slow path on the same snapshot: every distinct query of the bench query
 * file that bench/gen-zone writes (a query shape the generator adds fails the test until it is
 * covered), and a bench-like set of its own (A hits, AAAA NODATA, NXDOMAIN under an existing
 * namespace; mixed case; with and without EDNS; RD on and off): the memo is primed by the slow path's
 * answer to the lower-case variant of each query (another ID), and then has to produce exactly the
 * slow path's bytes for the query itself.
 */
class AnswerMemoDifferentialTest {
    private static final int SERVICES = 2000;
    private final Answerer answerer = new Answerer(1232);
    private final ResponseEncoder encoder = new ResponseEncoder(1232);
    private final ClientInfo client = new ClientInfo("127.0.0.1", 40000, false, Transport.UDP);

    @Test
    void fastPathBytesEqualSlowPathBytesForEveryBenchQuery() throws Exception {
        Snapshot snapshot = benchSnapshot(1);
        AnswerMemo memo = new AnswerMemo(1_000_000);
        SplittableRandom random = new SplittableRandom(7);
        int[] rcodes = new int[16];
        int hits = 0;
        // What the UDP listener does: each query read into one reused buffer whose bytes past the datagram are
        // left over from earlier ones (here random), the answer written into another reused buffer.
        byte[] receive = new byte[4096];
        byte[] answer = new byte[65_535];
        for (int n = 0; n < 5000; n++) {
            int kind = random.nextInt(10);
            int i = random.nextInt(SERVICES);
            String name = kind < 8 ? "svc-" + i + ".ns-" + i / 100 + ".bench.mesh." : "nosuch-" + n + ".ns-" + i / 100 + ".bench.mesh.";
            int qtype = kind == 7 ? Type.AAAA : Type.A;
            String mixed = DnsClient.mixCase(name, random);
            int edns = random.nextInt(4); // 0: none, 1: 1232, 2: 4096 with DO, 3: 512
            boolean rd = random.nextBoolean();

            byte[] primer = query(name, qtype, edns, rd, random.nextInt(65536));
            Message primed = new Message(primer);
            byte[] primerAnswer = slow(snapshot, primer);
            memo.remember(snapshot, primer, primerAnswer, "bench.mesh.", primed.getRcode(), qtype);

            byte[] q = query(mixed, qtype, edns, rd, random.nextInt(65536));
            byte[] expected = slow(snapshot, q);
            AnswerMemo.Hit hit = memo.lookup(snapshot, q);
            assertNotNull(hit, () -> "no memo hit for " + mixed);
            assertArrayEquals(expected, hit.response(), () -> "fast != slow for " + mixed + " type " + qtype + " edns " + edns);
            random.nextBytes(receive);
            System.arraycopy(q, 0, receive, 0, q.length);
            AnswerMemo.Entry entry = memo.find(snapshot, receive, q.length);
            assertNotNull(entry, () -> "no hit in the reused buffer for " + mixed);
            int length = entry.answerInto(receive, answer);
            assertArrayEquals(expected, Arrays.copyOf(answer, length), () -> "reused buffers: fast != slow for " + mixed);
            rcodes[new Message(expected).getRcode()]++;
            hits++;
        }
        assertEquals(5000, hits);
        assertTrue(rcodes[Rcode.NOERROR] > 0 && rcodes[Rcode.NXDOMAIN] > 0, "the set covers hits, NODATA and NXDOMAIN");
    }

    /**
     * Query shapes bench/gen-zone writes (digit runs as N), each with what the slow path answers. A shape
     * the generator starts writing that is not here fails the test below: add it, with its answer,
     * once the fast path is known to serve it.
     */
    private static final Map<String, Integer> BENCH_SHAPES = Map.of(
            "svc-N.ns-N.bench.mesh. A", Rcode.NOERROR,
            "svc-N.ns-N.bench.mesh. AAAA", Rcode.NOERROR, // NODATA
            "nosuch-N.ns-N.bench.mesh. A", Rcode.NXDOMAIN);

    /**
     * Every distinct query of the benchmark's own query file (bench/gen-zone, run here into a temporary
     * folder, 10k services as bench/run uses), on the zone file it writes beside it loaded by the zone
     * parser: the memo is primed by the slow path's answer to the query as the file has it, and must
     * then give exactly the slow path's bytes for the same question in mixed case with another ID, EDNS
     * variant and RD bit.
     */
    @Test
    void fastPathBytesEqualSlowPathBytesForEveryQueryOfTheBenchQueryFile(@TempDir Path dir) throws Exception {
        Path genZone = Path.of("..", "bench", "gen-zone").toAbsolutePath().normalize();
        assertTrue(Files.isExecutable(genZone), genZone + " is where the bench query file comes from");
        Commands.run(Duration.ofMinutes(2), genZone.toString(), "--records", "10000", "--out", dir.toString());
        Snapshot snapshot = Snapshot.build(1, List.of(ZoneFileParser.parse(dir.resolve("bench.mesh.zone"))));
        Set<String> distinct = new LinkedHashSet<>(Files.readAllLines(dir.resolve("queries.txt")));
        Map<String, Integer> perShape = new TreeMap<>();
        SplittableRandom random = new SplittableRandom(11);
        AnswerMemo memo = new AnswerMemo(1_000_000);
        for (String line : distinct) {
            String[] fields = line.split(" ");
            assertEquals(2, fields.length, () -> "bench query line: " + line);
            String shape = line.replaceAll("[0-9]+", "N");
            Integer rcode = BENCH_SHAPES.get(shape);
            assertNotNull(rcode, () -> "bench/gen-zone writes a query shape this test does not cover: " + shape + " (" + line + ")");
            String name = fields[0];
            int qtype = Type.value(fields[1]);
            int edns = random.nextInt(4);
            boolean rd = random.nextBoolean();

            byte[] primer = query(name, qtype, edns, rd, random.nextInt(65536));
            byte[] primerAnswer = slow(snapshot, primer);
            assertEquals(rcode, primerAnswer[3] & 0x0F, () -> "slow path rcode for " + line);
            memo.remember(snapshot, primer, primerAnswer, "bench.mesh.", rcode, qtype);

            String mixed = DnsClient.mixCase(name, random);
            byte[] q = query(mixed, qtype, edns, rd, random.nextInt(65536));
            AnswerMemo.Hit hit = memo.lookup(snapshot, q);
            assertNotNull(hit, () -> "no memo hit for " + mixed + " " + fields[1]);
            assertArrayEquals(slow(snapshot, q), hit.response(), () -> "fast != slow for " + mixed + " " + fields[1] + " edns " + edns);
            perShape.merge(shape, 1, Integer::sum);
        }
        assertEquals(BENCH_SHAPES.keySet(), perShape.keySet(), "every shape the test knows is in the bench file");
        System.out.println("bench query file: " + distinct.size() + " distinct queries compared, per shape " + perShape);
    }

    @Test
    void theQuestionsCaseIsEchoedAndTheIdPatched() throws Exception {
        Snapshot snapshot = benchSnapshot(1);
        AnswerMemo memo = tenEntriesRemembering(snapshot, query("svc-1.ns-0.bench.mesh.", Type.A, 0, true, 1));
        Message m = new Message(memo.lookup(snapshot, query("SvC-1.nS-0.BENCH.mesh.", Type.A, 0, true, 4242)).response());
        assertEquals(4242, m.getHeader().getID());
        assertEquals("SvC-1.nS-0.BENCH.mesh.", m.getQuestion().getName().toString());
        assertEquals("SvC-1.nS-0.BENCH.mesh.", m.getSection(Section.ANSWER).get(0).getName().toString());
    }

    @Test
    void unusualQueriesAndNewSnapshotsTakeTheSlowPath() throws Exception {
        Snapshot snapshot = benchSnapshot(1);
        byte[] plain = query("svc-1.ns-0.bench.mesh.", Type.A, 1, true, 1);
        AnswerMemo memo = tenEntriesRemembering(snapshot, plain);
        assertNotNull(memo.lookup(snapshot, plain));

        Message withCookie = new Message(plain);
        withCookie.removeAllRecords(Section.ADDITIONAL);
        List<EDNSOption> options = List.of(new GenericEDNSOption(10, new byte[8]));
        withCookie.addRecord(new OPTRecord(1232, 0, 0, 0, options), Section.ADDITIONAL);
        assertNull(memo.lookup(snapshot, withCookie.toWire()), "EDNS options are not keyed");
        byte[] noQuestion = plain.clone();
        noQuestion[5] = 0;
        assertNull(memo.lookup(snapshot, noQuestion), "qdcount 0");
        byte[] response = plain.clone();
        response[2] |= (byte) 0x80;
        assertNull(memo.lookup(snapshot, response), "QR set");
        byte[] notify = plain.clone();
        notify[2] = (byte) (4 << 3);
        assertNull(memo.lookup(snapshot, notify), "opcode NOTIFY");
        assertNull(memo.lookup(snapshot, query("svc-1.ns-0.bench.mesh.", Type.A, 2, true, 1)), "another OPT is another key");
        assertNull(memo.lookup(snapshot, query("svc-1.ns-0.bench.mesh.", Type.A, 1, false, 1)), "RD is part of the key");

        Snapshot next = benchSnapshot(2);
        assertNull(memo.lookup(next, plain), "answers of an older snapshot are never replayed");
        rememberSlowAnswer(memo, next, plain);
        assertNull(memo.lookup(snapshot, plain));
        assertNotNull(memo.find(next, plain, plain.length));
        assertNull(memo.find(next, plain, plain.length - 11), "arcount 1 but the OPT is past the datagram's length");
        assertEquals(1, memo.size());
    }

    /**
     * A flood of one-off names (random subdomains) far beyond the bound: the memo never holds more than
     * its bound, and a hot name asked after the flood is remembered on its next slow answer.
     */
    @Test
    void aFloodOfOneOffNamesStaysWithinTheBoundAndCannotLockAHotNameOut() throws Exception {
        Snapshot snapshot = benchSnapshot(1);
        AnswerMemo memo = new AnswerMemo(50);
        for (int i = 0; i < 500; i++) {
            byte[] junk = query("nosuch-" + i + ".ns-0.bench.mesh.", Type.A, 0, true, i);
            rememberSlowAnswer(memo, snapshot, junk);
            assertTrue(memo.size() <= 50, "bounded");
        }
        assertTrue(memo.size() >= 40, "the table fills, apart from the odd empty slot: " + memo.size());
        assertTrue(memo.evictions() >= 450, "every junk name beyond the bound replaced another: " + memo.evictions());

        byte[] hot = query("svc-7.ns-0.bench.mesh.", Type.A, 1, true, 1);
        assertNull(memo.lookup(snapshot, hot), "not yet remembered");
        rememberSlowAnswer(memo, snapshot, hot);
        assertNotNull(memo.lookup(snapshot, hot), "remembered although the memo was full");
    }

    /**
     * A name that is asked between the one-off names keeps its place: a full set replaces the entry no
     * query hit since it was stored (second chance), not the hot one. Replacing blindly would throw the
     * hot name out whenever a junk name lands on its slot.
     */
    @Test
    void aNameInUseSurvivesAStreamOfOneOffNames() throws Exception {
        Snapshot snapshot = benchSnapshot(1);
        AnswerMemo memo = new AnswerMemo(16);
        byte[] hot = query("svc-7.ns-0.bench.mesh.", Type.A, 1, true, 1);
        rememberSlowAnswer(memo, snapshot, hot);
        for (int i = 0; i < 2000; i++) {
            assertNotNull(memo.lookup(snapshot, hot), "hot name lost after " + i + " one-off names");
            byte[] junk = query("nosuch-" + i + ".ns-0.bench.mesh.", Type.A, 0, true, i);
            rememberSlowAnswer(memo, snapshot, junk);
        }
        assertTrue(memo.evictions() > 1500, "the junk names did fight over the slots: " + memo.evictions());
    }

    /**
     * A forwarded entry holds the mesh index it was decided under (every pod IP and service name of the
     * mesh). Once an answer from a newer snapshot is remembered, nothing of the older one may stay
     * reachable: with one slot at a time left to be overwritten, a busy mesh would keep a trail of old
     * indexes alive.
     */
    @Test
    void entriesOfAnOlderSnapshotAreDroppedNotLeftToBeOverwritten() throws Exception {
        Snapshot first = benchSnapshot(1);
        AnswerMemo memo = new AnswerMemo(1000);
        byte[] forwarded = query("www.example.org.", Type.A, 0, true, 1);
        Object oldIndex = new Object();
        WeakReference<Object> oldIndexRef = new WeakReference<>(oldIndex);
        memo.rememberForwarded(first, forwarded, new AnswerMemo.Forwarded(CacheKey.of(new Message(forwarded)), oldIndex),
                Rcode.NOERROR, Type.A);
        assertNotNull(memo.lookup(first, forwarded));
        oldIndex = null;

        Snapshot next = benchSnapshot(2);
        byte[] plain = query("svc-1.ns-0.bench.mesh.", Type.A, 0, true, 1);
        rememberSlowAnswer(memo, next, plain);
        assertEquals(1, memo.size());
        for (int i = 0; i < 20 && oldIndexRef.get() != null; i++) {
            System.gc();
            Thread.sleep(10);
        }
        assertNull(oldIndexRef.get(), "the old snapshot's entries still reference its mesh index");
    }

    /** The key folds the case of the name only: type 65 (bytes 0x00 0x41, "A") is not type 97 ("a"). */
    @Test
    void theTypeIsMatchedExactlyNotCaseFolded() throws Exception {
        Snapshot snapshot = benchSnapshot(1);
        byte[] https = query("svc-1.ns-0.bench.mesh.", 65, 0, true, 1);
        AnswerMemo memo = tenEntriesRemembering(snapshot, https);
        assertNotNull(memo.lookup(snapshot, https));
        assertNull(memo.lookup(snapshot, query("svc-1.ns-0.bench.mesh.", 97, 0, true, 1)));
        assertNull(memo.lookup(snapshot, query("svc-1.ns-0.bench.mesh.", Type.A, 0, true, 1)));
    }

    /** A memo of ten entries that holds the slow path's answer to {@code packet}. */
    private AnswerMemo tenEntriesRemembering(Snapshot snapshot, byte[] packet) throws Exception {
        AnswerMemo memo = new AnswerMemo(10);
        rememberSlowAnswer(memo, snapshot, packet);
        return memo;
    }

    /** Remembers the slow path's own answer to {@code packet}, as RequestProcessor does after sending it. */
    private void rememberSlowAnswer(AnswerMemo memo, Snapshot snapshot, byte[] packet) throws Exception {
        byte[] answer = slow(snapshot, packet);
        memo.remember(snapshot, packet, answer, "bench.mesh.", answer[3] & 0x0F, new Message(packet).getQuestion().getType());
    }

    private byte[] slow(Snapshot snapshot, byte[] packet) throws Exception {
        Message query = new Message(packet);
        Outcome.Answer answer = (Outcome.Answer) answerer.answer(snapshot, query, client);
        return encoder.encode(answer.response(), encoder.limitFor(query, Transport.UDP));
    }

    private static byte[] query(String name, int qtype, int edns, boolean rd, int id) throws Exception {
        Message m = Message.newQuery(Record.newRecord(Name.fromString(name), qtype, DClass.IN));
        m.getHeader().setID(id);
        if (!rd) {
            m.getHeader().unsetFlag(Flags.RD);
        }
        if (edns == 1) {
            m.addRecord(new OPTRecord(1232, 0, 0), Section.ADDITIONAL);
        } else if (edns == 2) {
            m.addRecord(new OPTRecord(4096, 0, 0, Flags.DO), Section.ADDITIONAL);
        } else if (edns == 3) {
            m.addRecord(new OPTRecord(512, 0, 0), Section.ADDITIONAL);
        }
        return m.toWire();
    }

    private static Snapshot benchSnapshot(long version) throws Exception {
        Name origin = Name.fromString("bench.mesh.");
        List<Record> records = new ArrayList<>();
        records.add(new SOARecord(origin, DClass.IN, 30, Name.fromString("ns.bench.mesh."),
                Name.fromString("hostmaster.bench.mesh."), version, 3600, 600, 86400, 30));
        records.add(new NSRecord(origin, DClass.IN, 30, Name.fromString("ns.bench.mesh.")));
        records.add(new ARecord(Name.fromString("ns.bench.mesh."), DClass.IN, 30, InetAddress.getByName("10.0.0.1")));
        for (int i = 0; i < SERVICES; i++) {
            int a = i + 1;
            records.add(new ARecord(Name.fromString(("svc-" + i + ".ns-" + i / 100 + ".bench.mesh.").toLowerCase(Locale.ROOT)),
                    DClass.IN, 30, InetAddress.getByAddress(new byte[] {10, (byte) (a >> 16), (byte) (a >> 8), (byte) a})));
        }
        return Snapshot.build(version, List.of(new ZoneContent(origin, records, true)));
    }
}
