package io.meshdns.dns.cache;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * The response cache: pure data structure, no I/O, time from an injected millisecond clock.
 *
 * <ul>
 *   <li>Positive answers live for the smallest TTL of their records, capped to [min-ttl, max-ttl].</li>
 *   <li>Negative answers (NXDOMAIN, NODATA) live for min(SOA TTL, SOA MINIMUM) of the SOA in the
 *       authority section (RFC 2308 §5), capped to [min-ttl, negative-max-ttl]; the SOA's TTL is
 *       rewritten to that value. A negative answer without SOA is not cached (RFC 2308 §5).</li>
 *   <li>SERVFAIL lives at most 5 s and never replaces an entry that can still be served stale.</li>
 *   <li>Truncated answers and other rcodes are never cached.</li>
 *   <li>Expired entries stay for the stale window so {@link #lookupStale} can answer (RFC 8767).</li>
 *   <li>Size is bounded with LRU eviction, per segment: large caches are split into 16 segments,
 *       each with its own lock, to keep lock contention low.</li>
 * </ul>
 */
public final class DnsCache {

    /** Kind of entry; {@link #metricType()} maps it to CoreDNS's {@code type} label. */
    public enum Kind {
        SUCCESS("success"), DENIAL("denial"), SERVFAIL("denial");

        private final String metricType;

        Kind(String metricType) {
            this.metricType = metricType;
        }

        public String metricType() {
            return metricType;
        }
    }

    private static final int SEGMENTED_THRESHOLD = 4096;

    private final CacheSettings settings;
    private final LongSupplier clockMillis;
    private final Segment[] segments;
    private final int segmentMask;

    private final LongAdder successHits = new LongAdder();
    private final LongAdder denialHits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder servedStale = new LongAdder();
    private final LongAdder successEvictions = new LongAdder();
    private final LongAdder denialEvictions = new LongAdder();
    private final AtomicLong successEntries = new AtomicLong();
    private final AtomicLong denialEntries = new AtomicLong();

    public DnsCache(CacheSettings settings, LongSupplier clockMillis) {
        this.settings = settings;
        this.clockMillis = clockMillis;
        int count = settings.maxEntries() >= SEGMENTED_THRESHOLD ? 16 : 1;
        int perSegment = (settings.maxEntries() + count - 1) / count;
        this.segments = new Segment[count];
        for (int i = 0; i < count; i++) {
            segments[i] = new Segment(perSegment);
        }
        this.segmentMask = count - 1;
    }

    public CacheSettings settings() {
        return settings;
    }

    public long nowMillis() {
        return clockMillis.getAsLong();
    }

    /** A fresh entry, or null (counted as a miss). */
    public CachedResponse lookup(CacheKey key) {
        CachedResponse entry = fresh(key);
        if (entry == null) {
            misses.increment();
            return null;
        }
        countHit(entry);
        return entry;
    }

    /**
     * For a listener's fast path: a fresh entry whose wire form is at most {@code maxLength} bytes,
     * counted as a hit; else null and nothing counted, so the slow path that the caller falls back
     * to (a miss, a stale entry, an answer that must be truncated) counts it exactly once.
     */
    public CachedResponse lookupFitting(CacheKey key, int maxLength) {
        CachedResponse entry = fresh(key);
        if (entry == null || entry.length() > maxLength) {
            return null;
        }
        countHit(entry);
        return entry;
    }

    private CachedResponse fresh(CacheKey key) {
        long now = clockMillis.getAsLong();
        Segment segment = segmentFor(key);
        CachedResponse entry;
        synchronized (segment) {
            entry = segment.get(key);
            if (entry != null && !entry.isStaleServable(now)) { // past the stale window: drop it
                segment.remove(key);
                entryRemoved(entry);
                entry = null;
            }
        }
        return entry == null || !entry.isFresh(now) ? null : entry;
    }

    private void countHit(CachedResponse entry) {
        (entry.kind() == Kind.SUCCESS ? successHits : denialHits).increment();
    }

    /** An expired entry still inside the stale window (RFC 8767), or null; counted as served stale. */
    public CachedResponse lookupStale(CacheKey key) {
        if (!settings.serveStale()) {
            return null;
        }
        long now = clockMillis.getAsLong();
        Segment segment = segmentFor(key);
        CachedResponse entry;
        synchronized (segment) {
            entry = segment.get(key);
        }
        if (entry == null || entry.kind() == Kind.SERVFAIL || !entry.isStaleServable(now)) {
            return null;
        }
        servedStale.increment();
        return entry;
    }

    /** Stores an upstream response if it is cacheable; returns whether it was stored. */
    public boolean put(CacheKey key, Message response) {
        CachedResponse entry = build(response);
        if (entry == null) {
            return false;
        }
        long now = clockMillis.getAsLong();
        Segment segment = segmentFor(key);
        synchronized (segment) {
            CachedResponse old = segment.get(key);
            if (entry.kind() == Kind.SERVFAIL && old != null && old.kind() != Kind.SERVFAIL
                    && settings.serveStale() && old.isStaleServable(now)) {
                return false; // keep the data that serve-stale needs
            }
            old = segment.put(key, entry);
            entryAdded(entry);
            if (old != null) {
                entryRemoved(old);
            }
        }
        return true;
    }

    private CachedResponse build(Message response) {
        if (response.getHeader().getFlag(Flags.TC) || response.getQuestion() == null) {
            return null;
        }
        int rcode = response.getRcode();
        Kind kind;
        long negativeTtl = -1;
        if (rcode == Rcode.SERVFAIL) {
            kind = Kind.SERVFAIL;
        } else if (rcode == Rcode.NXDOMAIN || rcode == Rcode.NOERROR && response.getSection(Section.ANSWER).isEmpty()) {
            SOARecord soa = firstSoa(response);
            if (soa == null) {
                return null; // RFC 2308 §5: negative answers without SOA SHOULD NOT be cached
            }
            kind = Kind.DENIAL;
            negativeTtl = clamp(Math.min(soa.getTTL(), soa.getMinimum()), settings.minTtl(), settings.negativeMaxTtl());
        } else if (rcode == Rcode.NOERROR) {
            kind = Kind.SUCCESS;
        } else {
            return null;
        }

        Message normalized = new Message(0);
        normalized.getHeader().setFlag(Flags.QR);
        normalized.getHeader().setFlag(Flags.RA); // served by us, a recursive service, whatever the upstream said
        copyFlag(response, normalized, Flags.AD);
        normalized.getHeader().setRcode(rcode & 0xF);
        normalized.addRecord(response.getQuestion(), Section.QUESTION);

        long[] ttls = new long[response.getHeader().getCount(Section.ANSWER)
                + response.getHeader().getCount(Section.AUTHORITY) + response.getHeader().getCount(Section.ADDITIONAL)];
        int n = 0;
        long lifetime = kind == Kind.SERVFAIL ? settings.servfailTtl() : Long.MAX_VALUE;
        for (int section = Section.ANSWER; section <= Section.ADDITIONAL; section++) {
            for (Record r : response.getSection(section)) {
                if (r.getType() == Type.OPT || r.getType() == Type.TSIG) {
                    continue; // hop-by-hop: the listener adds its own OPT
                }
                long ttl;
                if (kind == Kind.SERVFAIL) {
                    ttl = r.getTTL();
                } else if (kind == Kind.DENIAL && section == Section.AUTHORITY && r.getType() == Type.SOA) {
                    ttl = negativeTtl; // RFC 2308 §3: the SOA carries the negative TTL
                } else {
                    ttl = clamp(r.getTTL(), settings.minTtl(), settings.maxTtl());
                }
                if (kind != Kind.SERVFAIL) {
                    lifetime = Math.min(lifetime, ttl);
                }
                normalized.addRecord(r, section);
                ttls[n++] = ttl;
            }
        }
        if (kind == Kind.DENIAL) {
            lifetime = Math.min(lifetime, negativeTtl);
        }
        if (lifetime <= 0 || lifetime == Long.MAX_VALUE) {
            return null;
        }
        byte[] wire = normalized.toWire();
        int[] offsets = WireTtls.offsets(wire);
        for (int i = 0; i < offsets.length; i++) {
            WireTtls.put32(wire, offsets[i], ttls[i]);
        }
        return new CachedResponse(wire, offsets, kind, clockMillis.getAsLong(), lifetime,
                settings.serveStale() ? settings.staleWindow() : 0);
    }

    private static SOARecord firstSoa(Message response) {
        for (Record r : response.getSection(Section.AUTHORITY)) {
            if (r instanceof SOARecord soa && r.getDClass() == DClass.IN) {
                return soa;
            }
        }
        return null;
    }

    private static void copyFlag(Message from, Message to, int flag) {
        if (from.getHeader().getFlag(flag)) {
            to.getHeader().setFlag(flag);
        }
    }

    static long clamp(long ttl, long min, long max) {
        return Math.max(min, Math.min(max, ttl));
    }

    public long hits(Kind kind) {
        return kind == Kind.SUCCESS ? successHits.sum() : denialHits.sum();
    }

    public long successHits() {
        return successHits.sum();
    }

    public long denialHits() {
        return denialHits.sum();
    }

    public long misses() {
        return misses.sum();
    }

    /** Every lookup: hits of both kinds plus misses, CoreDNS's {@code coredns_cache_requests_total}. */
    public long requests() {
        return successHits.sum() + denialHits.sum() + misses.sum();
    }

    /** Entries pushed out by the size bound (not those that expired), CoreDNS's {@code coredns_cache_evictions_total}. */
    public long successEvictions() {
        return successEvictions.sum();
    }

    public long denialEvictions() {
        return denialEvictions.sum();
    }

    public long servedStale() {
        return servedStale.sum();
    }

    public long successEntries() {
        return successEntries.get();
    }

    public long denialEntries() {
        return denialEntries.get();
    }

    public long size() {
        return successEntries.get() + denialEntries.get();
    }

    private void entryAdded(CachedResponse e) {
        (e.kind() == Kind.SUCCESS ? successEntries : denialEntries).incrementAndGet();
    }

    private void entryRemoved(CachedResponse e) {
        (e.kind() == Kind.SUCCESS ? successEntries : denialEntries).decrementAndGet();
    }

    private Segment segmentFor(CacheKey key) {
        int h = key.hashCode();
        return segments[(h ^ (h >>> 16)) & segmentMask];
    }

    /** An access-ordered map evicting its least recently used entry past its capacity. Guarded by itself. */
    private final class Segment extends LinkedHashMap<CacheKey, CachedResponse> {
        private final int capacity;

        Segment(int capacity) {
            super(Math.min(capacity, 1024) * 4 / 3 + 1, 0.75f, true);
            this.capacity = capacity;
        }

        @Override
        protected boolean removeEldestEntry(Map.Entry<CacheKey, CachedResponse> eldest) {
            if (size() > capacity) {
                entryRemoved(eldest.getValue());
                (eldest.getValue().kind() == Kind.SUCCESS ? successEvictions : denialEvictions).increment();
                return true;
            }
            return false;
        }
    }
}
