package io.meshdns.dns.cache;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

import java.util.function.ToDoubleFunction;

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
        counter(registry, "coredns.cache.requests", "The count of cache requests", common, cache, DnsCache::requests);
        counter(registry, "coredns.cache.misses", "The count of cache misses", common, cache, DnsCache::misses);
        counter(registry, "coredns.cache.served.stale", "The number of requests served from stale cache entries (RFC 8767)",
                common, cache, DnsCache::servedStale);
        typed(registry, common.and("type", "success"), cache, DnsCache::successHits, DnsCache::successEvictions,
                DnsCache::successEntries);
        typed(registry, common.and("type", "denial"), cache, DnsCache::denialHits, DnsCache::denialEvictions,
                DnsCache::denialEntries);
    }

    /** The meters CoreDNS splits by {@code type}: hits, evictions and entries of one type. */
    private static void typed(MeterRegistry registry, Tags typed, DnsCache cache, ToDoubleFunction<DnsCache> hits,
                              ToDoubleFunction<DnsCache> evictions, ToDoubleFunction<DnsCache> entries) {
        counter(registry, "coredns.cache.hits", "The count of cache hits", typed, cache, hits);
        counter(registry, "coredns.cache.evictions", "The count of cache evictions", typed, cache, evictions);
        Gauge.builder("coredns.cache.entries", cache, entries).tags(typed)
                .description("The number of elements in the cache").register(registry);
    }

    private static void counter(MeterRegistry registry, String name, String description, Tags tags, DnsCache cache,
                                ToDoubleFunction<DnsCache> count) {
        FunctionCounter.builder(name, cache, count).tags(tags).description(description).register(registry);
    }
}
