package io.meshdns.dns.cache;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;

/** Keys under {@code meshdns.dns.cache.*}. Validated into {@link CacheSettings} at start. */
@ConfigMapping(prefix = "meshdns.dns.cache")
public interface CacheConfig {

    /** Cache upstream answers at all. */
    @WithDefault("true")
    boolean enabled();

    /** LRU bound on the number of cached responses. */
    @WithDefault("10000")
    int maxEntries();

    /** Upper cap on a positive answer's TTL. A plain number means seconds. */
    @WithDefault("3600s")
    Duration maxTtl();

    /** Lower cap on every cached TTL (0 = honour the upstream's TTL as is). */
    @WithDefault("0s")
    Duration minTtl();

    /** Upper cap on a negative answer's TTL (RFC 2308), like CoreDNS's denial cap. */
    @WithDefault("1800s")
    Duration negativeMaxTtl();

    /** How long an upstream SERVFAIL is cached; never more than 5 s. */
    @WithDefault("5s")
    Duration servfailTtl();

    /** RFC 8767: answer from expired entries while every upstream fails. */
    @WithDefault("true")
    boolean serveStale();

    /** How long after expiry an entry may still be served stale. */
    @WithDefault("1h")
    Duration staleWindow();

    /** TTL put on every record of a stale answer (RFC 8767 recommends 30 s). */
    @WithDefault("30s")
    Duration staleTtl();
}
