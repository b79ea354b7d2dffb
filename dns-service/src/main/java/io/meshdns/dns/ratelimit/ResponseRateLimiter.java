package io.meshdns.dns.ratelimit;

import io.meshdns.dns.metrics.Counters;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Singleton;
import jakarta.inject.Inject;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Response-rate limiting in front of the handler chain, for UDP (a TCP client has proven its address): each
 * client prefix gets {@code responses-per-second} answers a second; past that, every {@code slip}-th query gets a
 * truncated reply (TC=1, no records: a real client retries over TCP and is answered; a spoofed victim receives a
 * packet no larger than the query) and the rest are dropped, as Knot's and BIND's RRL do. Above
 * {@code shed-queries-per-second} from all clients together, the excess is dropped before any work (CoreDNS's
 * {@code shed} sheds by load; a rate is what a node can predict).
 *
 * <p>The table of prefixes is fixed-size and open to benign races: two event loops counting one prefix in the
 * same instant may each miss the other's increment (a few answers more, never fewer); a hash collision between two
 * busy prefixes makes them share one budget. Neither allocates on the query path.
 */
@Singleton // no client proxy: the listeners call it for every datagram
public class ResponseRateLimiter {
    /** What to do with one UDP query. */
    public enum Verdict { ANSWER, SLIP, DROP }

    private final RrlSettings settings;
    private final long[] keys;
    private final long[] seconds;
    private final int[] counts;
    private final int mask;
    private final int[] v4Networks;
    private final int[] v4Masks;
    private final java.util.List<io.meshdns.dns.base.Cidr> v6Exempt;
    private final AtomicLong globalSecond = new AtomicLong();
    private final AtomicLong globalCount = new AtomicLong();
    private LongAdder slipped = new LongAdder();
    private LongAdder dropped = new LongAdder();
    private LongAdder shed = new LongAdder();

    @Inject
    public ResponseRateLimiter(RrlConfig config, MeterRegistry registry) {
        this(RrlSettings.from(config));
        String d = "UDP queries the response-rate limit did not answer normally: slipped (TC=1), dropped, shed (global threshold)";
        slipped = Counters.register(registry, "meshdns.dns.rrl", d, "action", "slipped");
        dropped = Counters.register(registry, "meshdns.dns.rrl", d, "action", "dropped");
        shed = Counters.register(registry, "meshdns.dns.rrl", d, "action", "shed");
    }

    public ResponseRateLimiter(RrlSettings settings) {
        this.settings = settings;
        int size = Integer.highestOneBit(Math.max(16, settings.tableSize() - 1)) << 1;
        this.keys = new long[size];
        this.seconds = new long[size];
        this.counts = new int[size];
        this.mask = size - 1;
        java.util.List<Integer> nets = new java.util.ArrayList<>();
        java.util.List<Integer> masks = new java.util.ArrayList<>();
        java.util.List<io.meshdns.dns.base.Cidr> v6 = new java.util.ArrayList<>();
        for (io.meshdns.dns.base.Cidr c : settings.exempt()) {
            if (c.network().length == 4) {
                byte[] n = c.network();
                int m = c.prefixLength() == 0 ? 0 : -1 << (32 - c.prefixLength());
                masks.add(m);
                nets.add((((n[0] & 0xFF) << 24) | ((n[1] & 0xFF) << 16) | ((n[2] & 0xFF) << 8) | (n[3] & 0xFF)) & m);
            } else {
                v6.add(c);
            }
        }
        this.v4Networks = nets.stream().mapToInt(Integer::intValue).toArray();
        this.v4Masks = masks.stream().mapToInt(Integer::intValue).toArray();
        this.v6Exempt = java.util.List.copyOf(v6);
    }

    public boolean enabled() {
        return settings.enabled();
    }

    public RrlSettings settings() {
        return settings;
    }

    /**
     * The verdict for one UDP query from {@code client} at {@code nowNanos}. An IPv4 address is read from its hash
     * code, which {@code Inet4Address} defines as the address itself: no copy of its bytes per query.
     */
    public Verdict admit(java.net.InetAddress client, long nowNanos) {
        if (!settings.enabled()) return Verdict.ANSWER;
        if (client instanceof java.net.Inet4Address) {
            int a = client.hashCode();
            return exemptIpv4(a) ? Verdict.ANSWER : admitKey(ipv4Key(a & 0xFFFFFFFFL), nowNanos);
        }
        byte[] bytes = client.getAddress(); // one copy, for the exemption and the prefix both
        return exemptIpv6(bytes) ? Verdict.ANSWER : admitKey(prefixKey(bytes), nowNanos);
    }

    /** Whether an IPv4 client (its address as the number {@code Inet4Address.hashCode} gives) is exempt. */
    private boolean exemptIpv4(int address) {
        for (int i = 0; i < v4Networks.length; i++) {
            if ((address & v4Masks[i]) == v4Networks[i]) return true;
        }
        return false;
    }

    private boolean exemptIpv6(byte[] address) {
        for (io.meshdns.dns.base.Cidr c : v6Exempt) {
            if (c.contains(address)) return true;
        }
        return false;
    }

    /** The verdict for one UDP query from {@code address} (4 or 16 bytes) at {@code nowNanos}. */
    public Verdict admit(byte[] address, long nowNanos) {
        if (!settings.enabled()) return Verdict.ANSWER;
        return admitKey(prefixKey(address), nowNanos);
    }

    private Verdict admitKey(long key, long nowNanos) {
        long second = nowNanos / 1_000_000_000L;
        if (settings.shedQueriesPerSecond() > 0 && overGlobal(second)) {
            shed.increment();
            return Verdict.DROP;
        }
        int slot = (int) mix(key) & mask;
        int count;
        if (seconds[slot] != second) { // a new second (or a slot last used by another prefix in an earlier one)
            keys[slot] = key;
            seconds[slot] = second;
            counts[slot] = count = 1;
        } else {
            count = ++counts[slot];
        }
        if (count <= settings.responsesPerSecond()) return Verdict.ANSWER;
        int over = count - settings.responsesPerSecond();
        if (settings.slip() > 0 && over % settings.slip() == 0) {
            slipped.increment();
            return Verdict.SLIP;
        }
        dropped.increment();
        return Verdict.DROP;
    }

    private boolean overGlobal(long second) {
        long current = globalSecond.get();
        if (current != second && globalSecond.compareAndSet(current, second)) {
            globalCount.set(0);
        }
        return globalCount.incrementAndGet() > settings.shedQueriesPerSecond();
    }

    /** The client's prefix as one number: the family in the top bits so an IPv4 and an IPv6 prefix never meet. */
    long prefixKey(byte[] address) {
        if (address.length == 4) {
            return ipv4Key(((address[0] & 0xFFL) << 24) | ((address[1] & 0xFFL) << 16) | ((address[2] & 0xFFL) << 8) | (address[3] & 0xFFL));
        }
        // IPv6: fold the prefix's bytes; the top two bits mark the family.
        int bits = settings.ipv6PrefixLength();
        long h = 2L << 62;
        for (int i = 0; i < 16; i++) {
            int keep = Math.max(0, Math.min(8, bits - i * 8));
            int b = keep == 0 ? 0 : (address[i] & 0xFF) & (0xFF << (8 - keep));
            h = h * 31 + b;
        }
        return (h & ~(3L << 62)) | (2L << 62);
    }

    private long ipv4Key(long v) {
        int bits = settings.ipv4PrefixLength();
        return (1L << 62) | (v >>> (32 - bits) << (32 - bits));
    }

    private static long mix(long x) {
        x ^= x >>> 33;
        x *= 0xff51afd7ed558ccdL;
        x ^= x >>> 33;
        return x;
    }

    /** Totals for the status page: slipped, dropped, shed. */
    public long[] totals() {
        return new long[]{slipped.sum(), dropped.sum(), shed.sum()};
    }

    /**
     * The reply for a slipped query, in place in {@code out}: the query's header and question with QR, TC and RA
     * set and every count but the question's zero, so it is never larger than the query. -1 when the query has no
     * well-formed single question (it is dropped instead).
     */
    public static int truncatedReply(byte[] query, int length, byte[] out) {
        if (length < 12 || ((query[4] & 0xFF) << 8 | (query[5] & 0xFF)) != 1 || (query[2] & 0x80) != 0) return -1;
        int at = 12;
        while (at < length) {
            int label = query[at] & 0xFF;
            if (label == 0) break;
            if (label > 63) return -1; // a query's question carries no compression
            at += 1 + label;
        }
        int end = at + 1 + 4;
        if (at >= length || end > length) return -1;
        System.arraycopy(query, 0, out, 0, end);
        out[2] = (byte) ((query[2] & 0x79) | 0x80 | 0x02); // QR, TC; keep opcode and RD
        out[3] = (byte) 0x80; // RA, RCODE NOERROR
        for (int i = 6; i < 12; i++) out[i] = 0;
        return end;
    }
}
