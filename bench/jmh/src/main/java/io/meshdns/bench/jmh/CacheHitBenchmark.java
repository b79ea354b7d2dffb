package io.meshdns.bench.jmh;

import io.meshdns.dns.answer.Answerer;
import io.meshdns.dns.answer.ClientInfo;
import io.meshdns.dns.answer.Outcome;
import io.meshdns.dns.answer.Transport;
import io.meshdns.dns.cache.CacheKey;
import io.meshdns.dns.cache.CacheSettings;
import io.meshdns.dns.cache.DnsCache;
import io.meshdns.dns.fastpath.AnswerMemo;
import io.meshdns.dns.fastpath.CacheReplay;
import io.meshdns.dns.forward.ForwardSettings;
import io.meshdns.dns.forward.Upstream;
import io.meshdns.dns.forward.UpstreamForwarder;
import io.meshdns.dns.server.ResponseEncoder;
import io.meshdns.dns.snapshot.Snapshot;
import io.meshdns.dns.snapshot.ZoneContent;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
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
 * A forwarding-cache hit (bench/run --mode cache): the slow path (parse, Answerer says forward,
 * {@code forward} renders the cache entry and parses it, our OPT, encode) against the UDP fast path
 * (memo lookup, {@link CacheReplay} renders the entry's bytes). Cache filled with bench/gen-zone's
 * shape and query mix (70% A, 10% AAAA NODATA, 20% NXDOMAIN), as Knot answers them.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+UseParallelGC"})
public class CacheHitBenchmark {
    private static final int QUERIES = 4096;
    private static final int RECORDS = 10000;

    private final Answerer answerer = new Answerer(1232);
    private final ResponseEncoder encoder = new ResponseEncoder(1232);
    private final ClientInfo client = new ClientInfo("127.0.0.1", 40000, false, Transport.UDP);
    private final Snapshot empty = Snapshot.build(1, List.of());
    private final Object guard = new Object();
    // Room to spare: the memo is an eight-way set-associative table, so at a load near 1 some of the
    // queries would evict each other and the benchmark would measure misses (setUp checks every one hits).
    private final AnswerMemo memo = new AnswerMemo(QUERIES * 8);
    private Vertx vertx;
    private UpstreamForwarder forwarder;
    private CacheReplay replay;
    private byte[][] packets;
    private int next;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        Name origin = Name.fromString("bench.mesh.");
        List<Record> records = new ArrayList<>();
        records.add(new SOARecord(origin, DClass.IN, 3600, Name.fromString("ns.bench.mesh."),
                Name.fromString("hostmaster.bench.mesh."), 1, 3600, 600, 86400, 3600));
        records.add(new NSRecord(origin, DClass.IN, 3600, Name.fromString("ns.bench.mesh.")));
        for (int i = 0; i < RECORDS; i++) {
            int a = i + 1;
            records.add(new ARecord(name(i), DClass.IN, 3600, InetAddress.getByAddress(
                    new byte[] {10, (byte) (a >> 16), (byte) (a >> 8), (byte) a})));
        }
        Snapshot upstream = Snapshot.build(1, List.of(new ZoneContent(origin, records, true)));
        DnsCache cache = new DnsCache(CacheSettings.defaults(), System::currentTimeMillis);
        vertx = Vertx.vertx();
        forwarder = new UpstreamForwarder(vertx, ForwardSettings.of(List.of(Upstream.parse("127.0.0.1:9", "bench"))),
                cache, new SimpleMeterRegistry()); // never started: every answer here is a cache hit
        replay = new CacheReplay(forwarder, answerer, encoder::udpLimit);

        SplittableRandom random = new SplittableRandom(42);
        packets = new byte[QUERIES][];
        for (int q = 0; q < QUERIES; q++) {
            int kind = random.nextInt(10);
            int i = random.nextInt(RECORDS);
            Name qname = kind < 8 ? name(i) : Name.fromString("nosuch-" + q + ".ns-" + (i / 100) + ".bench.mesh.");
            Message query = Message.newQuery(Record.newRecord(qname, kind == 7 ? Type.AAAA : Type.A, DClass.IN));
            packets[q] = query.toWire();
            cache.put(CacheKey.of(query), ((Outcome.Answer) answerer.answer(upstream, query, client)).response());
            memo.rememberForwarded(empty, packets[q], new AnswerMemo.Forwarded(CacheKey.of(query), guard), 0, Type.A);
        }
        for (int q = 0; q < QUERIES; q++) {
            if (fastPath() == null) {
                throw new IllegalStateException("query " + q + " is not a fast-path hit");
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        vertx.close();
    }

    private static Name name(int i) throws Exception {
        return Name.fromString("svc-" + i + ".ns-" + (i / 100) + ".bench.mesh.");
    }

    private int nextIndex() {
        return next = (next + 1) & (QUERIES - 1);
    }

    /** What RequestProcessor.process does for a forwarded query answered from the cache. */
    @Benchmark
    public byte[] slowPath() throws Exception {
        Message query = new Message(packets[nextIndex()]);
        if (answerer.answer(empty, query, client) != Outcome.FORWARD) {
            throw new IllegalStateException();
        }
        Message response = forwarder.forward(query).toCompletableFuture().getNow(null);
        return encoder.encode(answerer.withEdns(query, response), encoder.limitFor(query, Transport.UDP));
    }

    /** RequestProcessor.fastAnswer's work for the same query (without the meters). */
    @Benchmark
    public byte[] fastPath() {
        byte[] packet = packets[nextIndex()];
        return replay.answer(memo.lookup(empty, packet), packet, guard);
    }
}
