package io.meshdns.bench.jmh;

import io.meshdns.dns.fastpath.AnswerMemo;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Type;

import java.util.concurrent.TimeUnit;

/**
 * The memo's key alone: {@link AnswerMemo#find} (question bounds, hash of the case-folded name, compare) over
 * 64 bench-like questions that stay in the CPU's cache, so what is measured is the hash and compare, not memory.
 * {@code mixed}: the queries ask in another case than the remembered one (dns0x20 clients), so every hit
 * also takes the case-folding compare.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 8, time = 1)
@Fork(1)
public class MemoBenchmark {
    private static final int QUERIES = 64;

    @Param({"lower", "mixed"})
    String questionCase;

    private final AnswerMemo memo = new AnswerMemo(4096);
    private final Object snapshot = new Object();
    private byte[][] packets;
    private int next;

    @Setup
    public void setUp() throws Exception {
        packets = new byte[QUERIES][];
        for (int q = 0; q < QUERIES; q++) {
            String name = "svc-" + (q * 157) + ".ns-" + (q * 157 / 100) + ".bench.mesh.";
            byte[] lower = Message.newQuery(Record.newRecord(Name.fromString(name), Type.A, DClass.IN)).toWire();
            byte[] response = lower.clone();
            response[2] |= (byte) 0x84;
            memo.remember(snapshot, lower, response, "bench.mesh.", 0, Type.A);
            packets[q] = questionCase.equals("lower") ? lower
                    : Message.newQuery(Record.newRecord(Name.fromString(mixed(name)), Type.A, DClass.IN)).toWire();
            if (memo.find(snapshot, packets[q], packets[q].length) == null) {
                throw new IllegalStateException("query " + q + " is not a hit");
            }
        }
    }

    private static String mixed(String name) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < name.length(); i++) {
            b.append(i % 2 == 0 ? Character.toUpperCase(name.charAt(i)) : name.charAt(i));
        }
        return b.toString();
    }

    @Benchmark
    public AnswerMemo.Entry find() {
        byte[] packet = packets[next = (next + 1) & (QUERIES - 1)];
        return memo.find(snapshot, packet, packet.length);
    }
}
