package io.meshdns.dns.tsig;

import org.xbill.DNS.Name;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The MACs of the signed requests accepted while they could still pass the time check, per key: RFC 8945 accepts a
 * request whose time is within its fudge (300 s by default) of ours, so a captured request could be sent again
 * for that long. A MAC is remembered until its request's time signed plus fudge has passed; after that the time
 * check refuses the copy anyway.
 *
 * <p>Bounded: at most {@link #PER_KEY} MACs per key (a MAC is at most 64 bytes: a few MiB per key at worst). Only
 * requests that verified are remembered, so only a holder of the key can fill it; when full, the MAC closest to
 * expiring is forgotten first (counted in {@link #evicted()}), which reopens the window for that one request only.
 * With clients signing at the current time and the default fudge, a MAC is kept 300 s, so the bound is reached
 * only above about 55 signed requests a second per key, sustained. Thread-safe: one lock per key.
 */
public final class ReplayCache {
    /** MACs remembered per key. */
    public static final int PER_KEY = 16_384;

    private final int perKey;
    private final Map<Name, PerKey> keys = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.LongAdder evicted = new java.util.concurrent.atomic.LongAdder();

    public ReplayCache() {
        this(PER_KEY);
    }

    ReplayCache(int perKey) {
        this.perKey = perKey;
    }

    /**
     * True the first time {@code mac} of {@code key} is offered while it is unexpired, false for a copy: remembers
     * it until {@code expires}.
     */
    public boolean firstUse(Name key, byte[] mac, Instant now, Instant expires) {
        return keys.computeIfAbsent(key, k -> new PerKey()).firstUse(ByteBuffer.wrap(mac.clone()), now, expires);
    }

    /** Unexpired MACs remembered for {@code key}. */
    public int size(Name key) {
        PerKey p = keys.get(key);
        return p == null ? 0 : p.size();
    }

    /** MACs forgotten before they expired because their key's cache was full. */
    public long evicted() {
        return evicted.sum();
    }

    private final class PerKey {
        /** In order of insertion; expiry is mostly in that order too (clients sign with the current time). */
        private final LinkedHashMap<ByteBuffer, Instant> seen = new LinkedHashMap<>();

        synchronized boolean firstUse(ByteBuffer mac, Instant now, Instant expires) {
            Instant known = seen.get(mac);
            if (known != null && !known.isBefore(now)) {
                return false;
            }
            dropExpired(now);
            if (seen.size() >= perKey) {
                dropSoonestExpiring();
                evicted.increment();
            }
            seen.put(mac, expires);
            return true;
        }

        /** Expired entries at the head of the insertion order; others are dropped when met or when full. */
        private void dropExpired(Instant now) {
            Iterator<Instant> it = seen.values().iterator();
            while (it.hasNext()) {
                if (!it.next().isBefore(now)) {
                    return;
                }
                it.remove();
            }
        }

        private void dropSoonestExpiring() {
            ByteBuffer soonest = null;
            Instant when = null;
            for (Map.Entry<ByteBuffer, Instant> e : seen.entrySet()) {
                if (when == null || e.getValue().isBefore(when)) {
                    soonest = e.getKey();
                    when = e.getValue();
                }
            }
            seen.remove(soonest);
        }

        synchronized int size() {
            return seen.size();
        }
    }
}
