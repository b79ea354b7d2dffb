package io.meshdns.dns.cache;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Exposes a {@link DnsCache}'s counters under CoreDNS's cache metric names. The cache counts with
 * LongAdders; Micrometer reads them at scrape time, so the query path touches no meter at all.
 */
public final class CacheMetrics {
    private CacheMetrics() {
    }

    public static void bind(DnsCache cache, MeterRegistry registry) {
        FunctionCounter.builder("coredns.cache.hits", cache, DnsCache::successHits).tag("type", "success")
                .description("Cache hits by type").register(registry);
        FunctionCounter.builder("coredns.cache.hits", cache, DnsCache::denialHits).tag("type", "denial")
                .description("Cache hits by type").register(registry);
        FunctionCounter.builder("coredns.cache.misses", cache, DnsCache::misses)
                .description("Cache misses").register(registry);
        FunctionCounter.builder("coredns.cache.served.stale", cache, DnsCache::servedStale)
                .description("Answers served stale (RFC 8767)").register(registry);
        Gauge.builder("coredns.cache.entries", cache, DnsCache::successEntries).tag("type", "success")
                .description("Cached responses by type").register(registry);
        Gauge.builder("coredns.cache.entries", cache, DnsCache::denialEntries).tag("type", "denial")
                .description("Cached responses by type").register(registry);
    }
}
