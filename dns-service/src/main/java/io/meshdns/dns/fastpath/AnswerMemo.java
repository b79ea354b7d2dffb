package io.meshdns.dns.fastpath;

import io.meshdns.dns.cache.CacheKey;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;
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
 * header flags (opcode, RD, CD, AD, Z), the question with its name in lower case, and the OPT
 * record's payload size, extended rcode, version and flags (DO). Only "plain" queries have a key:
 * opcode QUERY, one question, no answer or authority records, and either nothing or one option-less
 * OPT in the additional section. Everything else returns null from {@link #lookup} and takes the
 * slow path. A lookup reads the key straight from the query bytes: it allocates nothing but the
 * response it returns.
 *
 * <p>A key can also be remembered as <em>forwarded</em> ({@link #rememberForwarded}): under this
 * snapshot the slow path sends it to the forwarder, whose first step is a cache lookup. Such an
 * entry holds no answer but the {@link Forwarded} cache key; {@link CacheReplay} renders the cache's
 * current answer for it.
 *
 * <p><b>Table.</b> An array of {@code maxEntries} slots per snapshot; a key lives in one of
 * the eight slots of the set its hash picks (eight-way set associative, like a CPU cache). Remembering
 * a key whose set is full replaces one of its entries, preferring one no query has hit since it was
 * stored or last spared (second chance). Why not a growing map: when more keys are asked
 * than the bound holds (a 100k-record mesh, a flood of random subdomains), a map either stops
 * remembering (hot names stay slow) or is emptied and refilled, and every refill turns a full
 * table of promoted entries into old-generation garbage at once (full GCs of 100+ ms measured at
 * 100k records). Replacing one entry at a time keeps the garbage rate at the miss rate and the
 * memory at the bound, and a name in use survives a stream of one-off names.
 *
 * <p><b>Snapshots.</b> The table belongs to one snapshot: the first answer remembered from a newer
 * one replaces the whole table with an empty one, so nothing answered from an older snapshot is ever
 * served, and the old entries (with what they reference: forwarded entries hold the mesh index they
 * were decided under) become garbage together.
 *
 * <p>Over 400 lines because the key is read, hashed and compared straight from the wire bytes (question
 * bounds, OPT, the word-at-a-time case fold) beside the table it indexes: splitting them would spread one
 * hot loop's invariants over two files.
 */
public final class AnswerMemo {
    private static final int HEADER = 12;
    private static final int OPT_LENGTH = 11;
    private static final int TYPE_OPT = 41;
    /**
     * Slots a key may live in. Simulated with bench-like names: with 4 ways, 3.5% of the keys of a
     * half-full table lost their place to a neighbour; with 8, 0.8%; at 86% full, 15% and 9%.
     */
    private static final int WAYS = 8;
    /** Eight bytes of a byte[] as one little-endian long: the name is folded and hashed a word at a time. */
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    /**
     * One remembered key and what the slow path decided for it, for the replay and for metrics on a
     * fast-path hit. {@code meters} is a slot per address family for whatever the caller counts hits
     * with (resolved once, so a hit allocates no metric key): set lazily, and a race only resolves the
     * same value twice.
     */
    public static final class Entry {
        /** The response (authoritative) or the query (forwarded); its bytes [12, questionEnd) are the question. */
        private final byte[] bytes;
        private final int questionEnd;
        private final int hash;
        private final short flags;
        private final long opt;
        private final Forwarded forwarded;
        private final String zone;
        private final int rcode;
        private final int qtype;
        /** Hit since it was stored or last spared: the replacement's second chance (a benign race). */
        private boolean used;
        private Object meters4;
        private Object meters6;

        private Entry(byte[] bytes, int questionEnd, int hash, short flags, long opt,
                      Forwarded forwarded, String zone, int rcode, int qtype) {
            this.bytes = bytes;
            this.questionEnd = questionEnd;
            this.hash = hash;
            this.flags = flags;
            this.opt = opt;
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

        /** The offset just past the question, in this entry's bytes and in every query it matches. */
        public int questionEnd() {
            return questionEnd;
        }

        /** The remembered answer's length: what {@link #answerInto} writes. */
        public int answerLength() {
            return bytes.length;
        }

        /**
         * Writes the remembered answer to {@code query} (a query this entry matched) into {@code out} from
         * offset 0, patched with the query's ID and question case, ready to send; returns its length. Only
         * for an authoritative entry ({@link #forwarded()} null); {@code out} holds at least {@link #answerLength()}.
         */
        public int answerInto(byte[] query, byte[] out) {
            System.arraycopy(bytes, 0, out, 0, bytes.length);
            out[0] = query[0];
            out[1] = query[1];
            // The question's name, in the client's case; every other occurrence of it in the answer is a
            // compression pointer to these bytes (dnsjava compresses case-insensitively).
            System.arraycopy(query, HEADER, out, HEADER, questionEnd - 4 - HEADER);
            return bytes.length;
        }

        public Object meters(boolean ipv6) {
            return ipv6 ? meters6 : meters4;
        }

        public void meters(boolean ipv6, Object meters) {
            if (ipv6) meters6 = meters;
            else meters4 = meters;
        }

        /** Whether this entry answers {@code query} (a plain query whose question ends at {@code questionEnd}). */
        private boolean matches(int hash, byte[] query, int questionEnd) {
            if (this.hash != hash || this.questionEnd != questionEnd
                    || flags != flags(query) || opt != opt(query, questionEnd)) {
                return false;
            }
            int nameEnd = questionEnd - 4;
            if (!Arrays.equals(bytes, HEADER, nameEnd, query, HEADER, nameEnd) // most clients repeat the case,
                    && !sameFolded(bytes, query, nameEnd)) { // 0x20 clients (RFC 5452 section 9.7) do not
                return false;
            }
            return Arrays.equals(bytes, nameEnd, questionEnd, query, nameEnd, questionEnd);
        }
    }

    /**
     * A key the slow path forwards: {@code cacheKey} is the forwarder's cache key for it, and
     * {@code guard} what else the slow path's decision to forward depended on (the mesh index whose
     * wildcard hosts did not claim the name), which the caller compares by identity before a replay.
     */
    public record Forwarded(CacheKey cacheKey, Object guard) {
    }

    /**
     * The entries answered from {@code snapshot}. {@code tags} holds each slot's key hash, so a lookup
     * compares a set's eight ints in a cache line or two instead of dereferencing eight entries. Tags
     * are written without synchronisation: a stale tag only costs a miss or a full compare, since a
     * hit is decided by the entry itself.
     */
    private record Table(Object snapshot, AtomicReferenceArray<Entry> slots, int[] tags) {
        Table(Object snapshot, int length) {
            this(snapshot, new AtomicReferenceArray<>(length), new int[length]);
        }
    }

    private final int ways;
    private final int sets;
    private final LongAdder evictions = new LongAdder();
    private volatile Table table;

    /** Room for at most {@code maxEntries} (at least 1) answers, in sets of eight; the slots are allocated now. */
    public AnswerMemo(int maxEntries) {
        this.ways = Math.min(WAYS, Math.max(1, maxEntries));
        this.sets = Math.max(1, maxEntries / ways);
        this.table = new Table(null, sets * ways);
    }

    /**
     * The remembered answer to {@code query} (patched with its ID and question case, ready to send),
     * or null: no key (an unusual query) or nothing remembered for it under {@code snapshot}. For a
     * forwarded entry the hit has no response: the caller renders one (see {@link CacheReplay}).
     */
    public Hit lookup(Object snapshot, byte[] query) {
        Entry entry = find(snapshot, query, query.length);
        if (entry == null) {
            return null;
        }
        if (entry.forwarded != null) {
            return new Hit(null, entry, entry.questionEnd);
        }
        byte[] response = new byte[entry.bytes.length];
        entry.answerInto(query, response);
        return new Hit(response, entry, entry.questionEnd);
    }

    /**
     * The entry remembered for the first {@code length} bytes of {@code query} under {@code snapshot}, or
     * null; allocates nothing, so the UDP listener can look up from a reused receive buffer and write the
     * answer ({@link Entry#answerInto}) into a reused one. A hit's question ends where the entry's does
     * ({@link Entry#questionEnd}).
     */
    public Entry find(Object snapshot, byte[] query, int length) {
        Table t = table;
        if (t.snapshot != snapshot) {
            return null;
        }
        int questionEnd = questionEnd(query, length);
        if (questionEnd < 0) {
            return null;
        }
        int hash = hash(query, questionEnd);
        int set = setOf(hash);
        for (int slot = set; slot < set + ways; slot++) {
            if (t.tags[slot] != hash) {
                continue;
            }
            Entry e = t.slots.get(slot);
            if (e != null && e.matches(hash, query, questionEnd)) {
                if (!e.used) {
                    e.used = true; // only the first hit writes: no shared cache line dirtied per query
                }
                return e;
            }
        }
        return null;
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
        put(snapshot, query, questionEnd, response.clone(), null, zone, rcode, qtype);
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
        put(snapshot, query, questionEnd, Arrays.copyOf(query, questionEnd), forwarded, ".", rcode, qtype);
    }

    private void put(Object snapshot, byte[] query, int questionEnd, byte[] bytes, Forwarded forwarded,
                     String zone, int rcode, int qtype) {
        Table t = tableFor(snapshot);
        if (t == null) {
            return;
        }
        AtomicReferenceArray<Entry> slots = t.slots;
        int hash = hash(query, questionEnd);
        Entry entry = new Entry(bytes, questionEnd, hash, flags(query), opt(query, questionEnd), forwarded, zone, rcode, qtype);
        int set = setOf(hash);
        int target = -1;
        for (int slot = set; slot < set + ways; slot++) {
            Entry e = slots.get(slot);
            if (e == null) {
                if (target < 0) target = slot;
            } else if (e.matches(hash, query, questionEnd)) {
                target = slot; // the same key answered again (two threads raced on its first answer)
                break;
            }
        }
        if (target < 0) {
            // The set is full of current keys: replace the first one no query has hit since it was
            // stored or last spared, and make the others earn their place again (CLOCK's second chance).
            target = set;
            for (int slot = set; slot < set + ways; slot++) {
                if (!slots.get(slot).used) {
                    target = slot;
                    break;
                }
            }
            for (int slot = set; slot < set + ways; slot++) {
                slots.get(slot).used = false;
            }
            evictions.increment();
        }
        t.tags[target] = hash;
        slots.set(target, entry);
    }

    /**
     * The table for answers from {@code snapshot}: a snapshot other than the current table's gets a new,
     * empty one (a late answer from an older snapshot does too; the next answer from the newer one
     * replaces it again, and lookups only ever match the table of the snapshot they ask with).
     */
    private Table tableFor(Object snapshot) {
        Table t = table;
        if (t.snapshot == snapshot) {
            return t;
        }
        synchronized (this) {
            if (older(snapshot, table.snapshot)) {
                return null; // a late answer from a snapshot already replaced: keep the newer one's table
            }
            if (table.snapshot != snapshot) {
                table = new Table(snapshot, sets * ways);
            }
            return table;
        }
    }

    /**
     * Whether {@code snapshot} was replaced by {@code current} (snapshot versions only grow). The caller then
     * need not check the store again before remembering: an answer that raced a swap is simply not kept.
     */
    private static boolean older(Object snapshot, Object current) {
        return snapshot instanceof io.meshdns.dns.snapshot.Snapshot s && current instanceof io.meshdns.dns.snapshot.Snapshot c
                && s.version() < c.version();
    }

    /** Times a key took the slot of another key (its set was full). */
    public long evictions() {
        return evictions.sum();
    }

    /** Entries remembered for the current snapshot (for tests and metrics: scans the table). */
    public int size() {
        AtomicReferenceArray<Entry> slots = table.slots;
        int n = 0;
        for (int i = 0; i < slots.length(); i++) {
            if (slots.get(i) != null) {
                n++;
            }
        }
        return n;
    }

    /** The first slot of the key's set: Lemire's multiply-shift range reduction, no division. */
    private int setOf(int hash) {
        return (int) (((hash & 0xFFFFFFFFL) * sets) >>> 32) * ways;
    }

    private static short flags(byte[] query) {
        return (short) ((query[2] & 0xFF) << 8 | query[3] & 0xFF);
    }

    /** The OPT's payload size and extended rcode, version and flags, with a marker bit; 0 without an OPT. */
    private static long opt(byte[] query, int questionEnd) {
        if (query[11] == 0) {
            return 0;
        }
        long v = 0;
        for (int i = questionEnd + 3; i < questionEnd + 9; i++) { // class (payload size) and TTL
            v = v << 8 | (query[i] & 0xFF);
        }
        return v | 1L << 56;
    }

    /**
     * The key's hash, read from the query: flags, the name folded to lower case, type and class, OPT. The name
     * goes in eight bytes at a time ({@link #lower8}, no branch per byte): on the fast path this hash is the
     * largest Java cost after Netty's (a per-byte fold and multiply was 6-7 % of the server's CPU at 50k QPS).
     */
    private static int hash(byte[] query, int questionEnd) {
        int nameEnd = questionEnd - 4;
        long h = flags(query);
        int i = HEADER;
        for (; i + 8 <= nameEnd; i += 8) {
            h = mix(h, lower8((long) LONGS.get(query, i)));
        }
        if (i < nameEnd) {
            h = mix(h, lastWord(query, i, nameEnd));
        }
        h = mix(h, (int) INTS.get(query, nameEnd)); // type and class, exactly
        h = mix(h, opt(query, questionEnd));
        // MurmurHash3's 64-bit finaliser: the set is picked from the high bits of the result.
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        h ^= h >>> 33;
        return (int) (h ^ h >>> 32);
    }

    /** One step of the hash: invertible in {@code word} for a given {@code h}, so keys differing in one word differ here. */
    private static long mix(long h, long word) {
        return Long.rotateLeft((h ^ word) * 0x9E3779B97F4A7C15L, 29);
    }

    /**
     * Bytes [from, end) of the name (1 to 7 of them), folded, as the high bytes of a long: read as the eight bytes
     * ending at {@code end}, the ones before {@code from} shifted out. {@code end - 8} is never before the array:
     * the name starts after the 12-byte header.
     */
    private static long lastWord(byte[] m, int from, int end) {
        return lower8((long) LONGS.get(m, end - 8)) >>> (8 * (8 - (end - from)));
    }

    /** Whether bytes [12, nameEnd) of {@code a} and {@code b} are the same name but for ASCII case, a word at a time. */
    private static boolean sameFolded(byte[] a, byte[] b, int nameEnd) {
        int i = HEADER;
        for (; i + 8 <= nameEnd; i += 8) {
            if (lower8((long) LONGS.get(a, i)) != lower8((long) LONGS.get(b, i))) {
                return false;
            }
        }
        return i == nameEnd || lastWord(a, i, nameEnd) == lastWord(b, i, nameEnd);
    }

    /**
     * Eight bytes with ASCII 'A'..'Z' folded to 'a'..'z' and every other byte unchanged (digits, '-', '@', '[',
     * label length octets, bytes from 0x80 on), without a branch. Per byte, on its low seven bits x:
     * x + 0x3F has bit 7 set from 'A' (0x41) on, x + 0x25 from '[' (0x5B) on, and neither sum carries into the
     * next byte (at most 0x7F + 0x3F = 0xBE); their XOR's bit 7 is therefore set exactly for 'A'..'Z', and is
     * cleared for a byte whose own bit 7 was set. That bit shifted to 0x20 is the case bit.
     */
    static long lower8(long v) {
        long x = v & 0x7F7F7F7F7F7F7F7FL;
        long upper = ((x + 0x3F3F3F3F3F3F3F3FL) ^ (x + 0x2525252525252525L)) & ~v & 0x8080808080808080L;
        return v | upper >>> 2;
    }

    /**
     * Validates a plain query and returns the offset just past its question (name, type, class),
     * or -1 when it is not plain. The name must be uncompressed labels of 1..63 bytes, at most 255
     * bytes in all.
     */
    static int questionEnd(byte[] q) {
        return questionEnd(q, q.length);
    }

    /** {@link #questionEnd(byte[])} for a message of the first {@code length} bytes of {@code q}. */
    static int questionEnd(byte[] q, int length) {
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
}
