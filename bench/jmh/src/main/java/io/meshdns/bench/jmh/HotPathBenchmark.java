package io.meshdns.bench.jmh;

import io.meshdns.dns.answer.Answerer;
import io.meshdns.dns.answer.ClientInfo;
import io.meshdns.dns.answer.Outcome;
import io.meshdns.dns.answer.Transport;
import io.meshdns.dns.fastpath.AnswerMemo;
import io.meshdns.dns.server.ResponseEncoder;
import io.meshdns.dns.snapshot.Node;
import io.meshdns.dns.snapshot.Snapshot;
import io.meshdns.dns.snapshot.ZoneContent;
import io.meshdns.dns.snapshot.ZoneIndex;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.NSRecord;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.Type;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * dns-service's authoritative hot path, stage by stage, on bench/gen-zone's data shape
 * ({@code svc-<i>.ns-<i/100>.bench.mesh. A 10.x.y.z}) and its query mix (70% A hit, 10% AAAA
 * NODATA, 20% NXDOMAIN under an existing namespace). {@code records} shows whether a stage's cost
 * grows with the zone: lookup must not.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+UseParallelGC"})
public class HotPathBenchmark {
    private static final int QUERIES = 4096; // a power of two: the index wraps with a mask

    @Param({"10000", "100000", "1000000"})
    int records;

    private Snapshot snapshot;
    private ZoneIndex zone;
    private final Answerer answerer = new Answerer(1232);
    private final ResponseEncoder encoder = new ResponseEncoder(1232);
    private final ClientInfo client = new ClientInfo("127.0.0.1", 40000, false, Transport.UDP);
    private byte[][] packets;
    private Message[] queries;
    private Name[] names;
    private Message[] responses;
    // Room to spare: the memo is an eight-way set-associative table, so at a load near 1 some of the
    // queries would evict each other and the benchmark would measure misses (setUp checks every one hits).
    private final AnswerMemo memo = new AnswerMemo(QUERIES * 8);
    private int next;
    private final byte[] answerBuffer = new byte[65_535];

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        Name origin = Name.fromString("bench.mesh.");
        List<Record> zoneRecords = new ArrayList<>(records + 3);
        zoneRecords.add(new SOARecord(origin, DClass.IN, 30, Name.fromString("ns.bench.mesh."),
                Name.fromString("hostmaster.bench.mesh."), 1, 3600, 600, 86400, 30));
        zoneRecords.add(new NSRecord(origin, DClass.IN, 30, Name.fromString("ns.bench.mesh.")));
        zoneRecords.add(new ARecord(Name.fromString("ns.bench.mesh."), DClass.IN, 30,
                InetAddress.getByAddress(new byte[] {10, 0, 0, 1})));
        for (int i = 0; i < records; i++) {
            int a = i + 1;
            zoneRecords.add(new ARecord(name(i), DClass.IN, 30, InetAddress.getByAddress(
                    new byte[] {10, (byte) (a >> 16), (byte) (a >> 8), (byte) a})));
        }
        snapshot = Snapshot.build(1, List.of(new ZoneContent(origin, zoneRecords, true)));
        zone = snapshot.findZone(origin);

        SplittableRandom random = new SplittableRandom(42);
        packets = new byte[QUERIES][];
        queries = new Message[QUERIES];
        names = new Name[QUERIES];
        responses = new Message[QUERIES];
        for (int q = 0; q < QUERIES; q++) {
            int kind = random.nextInt(10);
            int i = random.nextInt(records);
            Name qname = kind < 8 ? name(i) : Name.fromString("nosuch-" + q + ".ns-" + (i / 100) + ".bench.mesh.");
            int qtype = kind == 7 ? Type.AAAA : Type.A;
            Message query = Message.newQuery(Record.newRecord(qname, qtype, DClass.IN));
            packets[q] = query.toWire();
            queries[q] = new Message(packets[q]);
            names[q] = qname;
            responses[q] = ((Outcome.Answer) answerer.answer(snapshot, queries[q], client)).response();
            memo.remember(snapshot, packets[q], encoder.encode(responses[q], encoder.limitFor(queries[q], Transport.UDP)),
                    "bench.mesh.", responses[q].getRcode(), qtype);
        }
        for (int q = 0; q < QUERIES; q++) {
            if (memo.lookup(snapshot, packets[q]) == null) {
                throw new IllegalStateException("query " + q + " is not a fast-path hit");
            }
        }
    }

    private static Name name(int i) throws Exception {
        return Name.fromString("svc-" + i + ".ns-" + (i / 100) + ".bench.mesh.");
    }

    private int nextIndex() {
        return next = (next + 1) & (QUERIES - 1);
    }

    /** Wire bytes to a dnsjava Message. */
    @Benchmark
    public Message parse() throws Exception {
        return new Message(packets[nextIndex()]);
    }

    /** Zone lookup and node lookup for a parsed name. */
    @Benchmark
    public Node lookup() {
        Name name = names[nextIndex()];
        ZoneIndex z = snapshot.findZone(name);
        return z == null ? null : z.node(name);
    }

    /** The Answerer on a parsed query: lookup plus building the response Message. */
    @Benchmark
    public Outcome answer() {
        return answerer.answer(snapshot, queries[nextIndex()], client);
    }

    /** A finished response Message to wire bytes (with name compression). */
    @Benchmark
    public byte[] encode() {
        return encoder.encode(responses[nextIndex()], 512);
    }

    /** The UDP fast path on a remembered answer: key, copy, patch ID and case. */
    @Benchmark
    public AnswerMemo.Hit fastPath() {
        return memo.lookup(snapshot, packets[nextIndex()]);
    }

    /**
     * The fast path as the UDP listener runs it: the entry found in the (reused) receive buffer and the
     * answer written into a reused one; the bytes a hit allocates, next to {@link #fastPath}'s copy.
     */
    @Benchmark
    public int fastPathReused() {
        byte[] packet = packets[nextIndex()];
        AnswerMemo.Entry entry = memo.find(snapshot, packet, packet.length);
        return entry == null ? -1 : entry.answerInto(packet, answerBuffer);
    }

    /** All of it: packet bytes in, response bytes out, as RequestProcessor does for an authoritative query. */
    @Benchmark
    public byte[] packetToAnswer() throws Exception {
        Message query = new Message(packets[nextIndex()]);
        Outcome.Answer outcome = (Outcome.Answer) answerer.answer(snapshot, query, client);
        return encoder.encode(outcome.response(), encoder.limitFor(query, Transport.UDP));
    }
}
