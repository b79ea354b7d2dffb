package io.meshdns.dns.fastpath;

import io.meshdns.dns.cache.CacheKey;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Pre-encoded authoritative UDP answers, per snapshot: the hot path for a repeated question copies
 * bytes and patches the ID and the question's exact case (0x20), with no dnsjava {@code Message}
 * parsed or built. Pure: no I/O; thread-safe.
 *
 * <p>The bytes are the slow path's own output for an earlier query with the same key, remembered
 * by {@link #remember} after the slow path answered it. So the fast path cannot disagree with the
 * slow path on content, only on the two things it patches, and those are differential-tested
 * (AnswerMemoDifferentialTest). Entries are filled on first use instead of at snapshot build: a
 * million-record snapshot does not pay for answers nobody asks, and the build stays as fast as
 * before.
 *
 * <p>The key is everything in the query the answer can depend on for a client-independent zone:
 * header flags (opcode, RD, CD, AD, Z), the question in lower case, and the OPT record's raw bytes
 * (payload size, version, DO). Only "plain" queries have a key: opcode QUERY, one question, no
 * answer or authority records, and either nothing or one option-less OPT in the additional
 * section. Everything else returns null from {@link #lookup} and takes the slow path.
 *
 * <p>A key can also be remembered as <em>forwarded</em> ({@link #rememberForwarded}): under this
 * snapshot the slow path sends it to the forwarder, whose first step is a cache lookup. Such an
 * entry holds no bytes but the {@link Forwarded} cache key; {@link CacheReplay} renders the cache's
 * current answer for it.
 *
 * <p>A new snapshot empties the memo (answers from the old one are never served). The memo is
 * bounded: an answer that finds {@code maxEntries} already remembered empties it first.
 */
public final class AnswerMemo {
    private static final int HEADER = 12;
    private static final int OPT_LENGTH = 11;
    private static final int TYPE_OPT = 41;

    /**
     * What the slow path decided, for metrics on a fast-path hit. {@code meters} is a slot per address
     * family for whatever the caller counts hits with (resolved once, so a hit allocates no metric key):
     * set lazily, and a race only resolves the same value twice.
     */
    public static final class Entry {
        private final byte[] response;
        private final Forwarded forwarded;
        private final String zone;
        private final int rcode;
        private final int qtype;
        private Object meters4;
        private Object meters6;

        Entry(byte[] response, Forwarded forwarded, String zone, int rcode, int qtype) {
            this.response = response;
            this.forwarded = forwarded;
            this.zone = zone;
            this.rcode = rcode;
            this.qtype = qtype;
        }

        /** Null for a remembered authoritative answer; else where the forwarder's cache keeps the answer. */
        public Forwarded forwarded() {
            return forwarded;
        }

        public String zone() {
            return zone;
        }

        public int rcode() {
            return rcode;
        }

        public int qtype() {
            return qtype;
        }

        public Object meters(boolean ipv6) {
            return ipv6 ? meters6 : meters4;
        }

        public void meters(boolean ipv6, Object meters) {
            if (ipv6) meters6 = meters;
            else meters4 = meters;
        }
    }

    /**
     * A key the slow path forwards: {@code cacheKey} is the forwarder's cache key for it, and
     * {@code guard} what else the slow path's decision to forward depended on (the mesh index whose
     * wildcard hosts did not claim the name), which the caller compares by identity before a replay.
     */
    public record Forwarded(CacheKey cacheKey, Object guard) {
    }

    private record Table(Object snapshot, ConcurrentHashMap<Key, Entry> entries) {
    }

    private final int maxEntries;
    private final LongAdder resets = new LongAdder();
    private volatile Table table = new Table(null, new ConcurrentHashMap<>());

    public AnswerMemo(int maxEntries) {
        this.maxEntries = maxEntries;
    }

    /**
     * The remembered answer to {@code query} (patched with its ID and question case, ready to send),
     * or null: no key (an unusual query) or nothing remembered for it under {@code snapshot}. For a
     * forwarded entry the hit has no response: the caller renders one (see {@link CacheReplay}).
     */
    public Hit lookup(Object snapshot, byte[] query) {
        Table t = table;
        if (t.snapshot != snapshot) {
            return null;
        }
        int questionEnd = questionEnd(query);
        if (questionEnd < 0) {
            return null;
        }
        Entry entry = t.entries.get(Key.of(query, questionEnd));
        if (entry == null) {
            return null;
        }
        if (entry.forwarded != null) {
            return new Hit(null, entry, questionEnd);
        }
        byte[] response = entry.response.clone();
        response[0] = query[0];
        response[1] = query[1];
        // The question's name, in the client's case; every other occurrence of it in the answer is a
        // compression pointer to these bytes (dnsjava compresses case-insensitively).
        System.arraycopy(query, HEADER, response, HEADER, questionEnd - 4 - HEADER);
        return new Hit(response, entry, questionEnd);
    }

    /**
     * A fast-path answer: the bytes to send (null for a forwarded entry), the slow path's verdict for
     * metrics, and the offset just past the query's question (where its OPT starts, if it has one).
     */
    public record Hit(byte[] response, Entry entry, int questionEnd) {
    }

    /**
     * Remembers the slow path's {@code response} to {@code query}, answered from {@code snapshot}.
     * The caller guarantees the answer depends on nothing but the query bytes and the snapshot
     * (an authoritative, client-independent zone; no per-query rotation). Ignored when the query
     * has no key or the response does not start with the same question.
     */
    public void remember(Object snapshot, byte[] query, byte[] response, String zone, int rcode, int qtype) {
        int questionEnd = questionEnd(query);
        if (questionEnd < 0 || response.length < questionEnd
                || response[4] != 0 || response[5] != 1
                || !Arrays.equals(query, HEADER, questionEnd, response, HEADER, questionEnd)) {
            return;
        }
        put(snapshot, query, questionEnd, new Entry(response.clone(), null, zone, rcode, qtype));
    }

    /**
     * Remembers that under {@code snapshot} the slow path forwards {@code query} (not ours, not hosts
     * data, not claimed by the mesh hook) and that the answer is the forwarder's to give: from its
     * cache under {@code forwarded.cacheKey()} when fresh. The caller guarantees that nothing but the
     * query bytes, the snapshot and {@code forwarded.guard()} decided to forward it. Metrics label it
     * zone ".", with the rcode of that answer ({@code rcode}).
     */
    public void rememberForwarded(Object snapshot, byte[] query, Forwarded forwarded, int rcode, int qtype) {
        int questionEnd = questionEnd(query);
        if (questionEnd < 0) {
            return;
        }
        put(snapshot, query, questionEnd, new Entry(null, forwarded, ".", rcode, qtype));
    }

    private void put(Object snapshot, byte[] query, int questionEnd, Entry entry) {
        Table t = table;
        if (t.snapshot != snapshot) {
            t = new Table(snapshot, new ConcurrentHashMap<>());
            table = t; // a newer snapshot's answer replaces the old table; a late older one is dropped by lookup
        }
        if (t.entries.size() >= maxEntries) {
            // Full: start over instead of no longer remembering. A flood of one-off names (random
            // subdomains, a scan) would otherwise fill the memo for good and leave every hot name on the
            // slow path until the next snapshot; after a reset each hot name is back after one slow answer.
            t = new Table(snapshot, new ConcurrentHashMap<>());
            table = t;
            resets.increment();
        }
        t.entries.putIfAbsent(Key.of(query, questionEnd), entry);
    }

    /** Times the memo was found full and emptied (see {@link #put}). */
    public long resets() {
        return resets.sum();
    }

    /** Entries remembered for the current snapshot (for tests and metrics). */
    public int size() {
        return table.entries.size();
    }

    /**
     * Validates a plain query and returns the offset just past its question (name, type, class),
     * or -1 when it is not plain. The name must be uncompressed labels of 1..63 bytes, at most 255
     * bytes in all.
     */
    static int questionEnd(byte[] q) {
        int length = q.length;
        if (length < HEADER + 5
                || (q[2] & 0xF8) != 0 // QR=0, opcode QUERY
                || q[4] != 0 || q[5] != 1 // one question
                || q[6] != 0 || q[7] != 0 || q[8] != 0 || q[9] != 0 // no answer, no authority
                || q[10] != 0 || (q[11] & 0xFE) != 0) { // at most one additional
            return -1;
        }
        int p = HEADER;
        while (true) {
            if (p >= length) {
                return -1;
            }
            int label = q[p] & 0xFF;
            if (label == 0) {
                p++;
                break;
            }
            if (label > 63) {
                return -1; // a pointer or an extended label type
            }
            p += label + 1;
            if (p - HEADER > 255) {
                return -1;
            }
        }
        int end = p + 4;
        if (q[11] == 0) {
            return end == length ? end : -1;
        }
        // One OPT with no options: root owner, type 41, rdlength 0.
        if (end + OPT_LENGTH != length || q[end] != 0 || q[end + 1] != 0 || q[end + 2] != TYPE_OPT
                || q[end + 9] != 0 || q[end + 10] != 0) {
            return -1;
        }
        return end;
    }

    /** Flags, lower-cased question and the OPT bytes, with the hash computed once. */
    static final class Key {
        private final byte[] bytes;
        private final int hash;

        private Key(byte[] bytes) {
            this.bytes = bytes;
            this.hash = Arrays.hashCode(bytes);
        }

        static Key of(byte[] query, int questionEnd) {
            int nameEnd = questionEnd - 4;
            byte[] k = new byte[2 + query.length - HEADER];
            k[0] = query[2];
            k[1] = query[3];
            for (int i = HEADER; i < query.length; i++) {
                byte b = query[i];
                // ASCII case folding in the name only; length octets are <= 63 and never in 'A'..'Z'.
                k[2 + i - HEADER] = i < nameEnd && b >= 'A' && b <= 'Z' ? (byte) (b + 32) : b;
            }
            return new Key(k);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key other && other.hash == hash && Arrays.equals(other.bytes, bytes);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
