package io.meshdns.dns.cache;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

/**
 * Exposes a {@link DnsCache}'s counters under CoreDNS's cache metric names and labels ({@code server},
 * {@code zones}, and {@code type} where CoreDNS has it): {@code coredns_cache_requests_total},
 * {@code coredns_cache_hits_total{type}}, {@code coredns_cache_misses_total},
 * {@code coredns_cache_evictions_total{type}}, {@code coredns_cache_served_stale_total},
 * {@code coredns_cache_entries{type}}. The cache counts with LongAdders; Micrometer reads them at
 * scrape time, so the query path touches no meter at all. The cache serves every forwarded name, so
 * {@code zones} is the root, {@code "."}.
 */
public final class CacheMetrics {
    /** The zones the forwarding cache covers, CoreDNS's {@code zones} label. */
    public static final String ZONES = ".";

    private CacheMetrics() {
    }

    /** Registers the cache's meters with CoreDNS's {@code server} label ({@code dns://127.0.0.1:5353}). */
    public static void bind(DnsCache cache, MeterRegistry registry, String server) {
        Tags common = Tags.of("server", server, "zones", ZONES);
        FunctionCounter.builder("coredns.cache.requests", cache, DnsCache::requests).tags(common)
                .description("The count of cache requests").register(registry);
        FunctionCounter.builder("coredns.cache.hits", cache, DnsCache::successHits).tags(common).tag("type", "success")
                .description("The count of cache hits").register(registry);
        FunctionCounter.builder("coredns.cache.hits", cache, DnsCache::denialHits).tags(common).tag("type", "denial")
                .description("The count of cache hits").register(registry);
        FunctionCounter.builder("coredns.cache.misses", cache, DnsCache::misses).tags(common)
                .description("The count of cache misses").register(registry);
        FunctionCounter.builder("coredns.cache.evictions", cache, DnsCache::successEvictions).tags(common).tag("type", "success")
                .description("The count of cache evictions").register(registry);
        FunctionCounter.builder("coredns.cache.evictions", cache, DnsCache::denialEvictions).tags(common).tag("type", "denial")
                .description("The count of cache evictions").register(registry);
        FunctionCounter.builder("coredns.cache.served.stale", cache, DnsCache::servedStale).tags(common)
                .description("The number of requests served from stale cache entries (RFC 8767)").register(registry);
        Gauge.builder("coredns.cache.entries", cache, DnsCache::successEntries).tags(common).tag("type", "success")
                .description("The number of elements in the cache").register(registry);
        Gauge.builder("coredns.cache.entries", cache, DnsCache::denialEntries).tags(common).tag("type", "denial")
                .description("The number of elements in the cache").register(registry);
    }
}
