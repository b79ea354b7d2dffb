package io.meshdns.dns.cache;

import java.time.Duration;

/**
 * Validated cache settings; all TTLs in seconds. Construct with {@link #from(CacheConfig)} so that a
 * bad value fails at start with a message naming its key.
 */
public record CacheSettings(
        boolean enabled,
        int maxEntries,
        long maxTtl,
        long minTtl,
        long negativeMaxTtl,
        long servfailTtl,
        boolean serveStale,
        long staleWindow,
        long staleTtl) {

    /** RFC 2308 §7.1: a SERVFAIL is never cached for more than 5 s. */
    public static final long SERVFAIL_TTL_CAP = 5;

    public CacheSettings {
        require(maxEntries > 0, "meshdns.dns.cache.max-entries", "must be > 0, got " + maxEntries);
        require(minTtl >= 0, "meshdns.dns.cache.min-ttl", "must be >= 0");
        require(maxTtl > 0, "meshdns.dns.cache.max-ttl", "must be > 0");
        require(minTtl <= maxTtl, "meshdns.dns.cache.min-ttl", "must not exceed meshdns.dns.cache.max-ttl");
        require(negativeMaxTtl >= 0, "meshdns.dns.cache.negative-max-ttl", "must be >= 0");
        require(servfailTtl >= 0 && servfailTtl <= SERVFAIL_TTL_CAP, "meshdns.dns.cache.servfail-ttl",
                "must be between 0 and 5 s");
        require(staleWindow >= 0, "meshdns.dns.cache.stale-window", "must be >= 0");
        require(staleTtl > 0, "meshdns.dns.cache.stale-ttl", "must be > 0");
    }

    /** CoreDNS-like defaults; handy for tests. */
    public static CacheSettings defaults() {
        return new CacheSettings(true, 10_000, 3600, 0, 1800, 5, true, 3600, 30);
    }

    public static CacheSettings from(CacheConfig c) {
        return new CacheSettings(c.enabled(), c.maxEntries(),
                seconds(c.maxTtl(), "max-ttl"), seconds(c.minTtl(), "min-ttl"),
                seconds(c.negativeMaxTtl(), "negative-max-ttl"), seconds(c.servfailTtl(), "servfail-ttl"),
                c.serveStale(), seconds(c.staleWindow(), "stale-window"), seconds(c.staleTtl(), "stale-ttl"));
    }

    public CacheSettings withMaxEntries(int n) {
        return new CacheSettings(enabled, n, maxTtl, minTtl, negativeMaxTtl, servfailTtl, serveStale, staleWindow, staleTtl);
    }

    public CacheSettings withTtlCaps(long min, long max, long negativeMax) {
        return new CacheSettings(enabled, maxEntries, max, min, negativeMax, servfailTtl, serveStale, staleWindow, staleTtl);
    }

    public CacheSettings withServeStale(boolean on, long window) {
        return new CacheSettings(enabled, maxEntries, maxTtl, minTtl, negativeMaxTtl, servfailTtl, on, window, staleTtl);
    }

    private static long seconds(Duration d, String key) {
        require(!d.isNegative(), "meshdns.dns.cache." + key, "must not be negative, got " + d);
        return d.toSeconds();
    }

    private static void require(boolean ok, String key, String message) {
        if (!ok) {
            throw new IllegalArgumentException(key + ": " + message);
        }
    }
}
