package io.meshdns.dns.forward;

import io.meshdns.dns.cache.CacheConfig;
import io.meshdns.dns.cache.CacheMetrics;
import io.meshdns.dns.cache.CacheSettings;
import io.meshdns.dns.cache.DnsCache;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Builds the {@link Forwarder} bean from config at start, so that bad forwarding or cache config
 * fails the start with a message naming the key.
 */
@ApplicationScoped
public class ForwarderProducer {

    @Produces
    @Singleton
    @Startup
    UpstreamForwarder forwarder(Vertx vertx, ForwardConfig forwardConfig, CacheConfig cacheConfig, MeterRegistry registry,
                                @ConfigProperty(name = "meshdns.dns.bind-address", defaultValue = "127.0.0.1") String bindAddress,
                                @ConfigProperty(name = "meshdns.dns.port", defaultValue = "5353") int port) {
        ForwardSettings settings = ForwardSettings.from(forwardConfig, bindAddress, port);
        CacheSettings cacheSettings = CacheSettings.from(cacheConfig);
        DnsCache cache = null;
        if (cacheSettings.enabled()) {
            cache = new DnsCache(cacheSettings, ForwarderProducer::monotonicMillis);
            CacheMetrics.bind(cache, registry);
        }
        return new UpstreamForwarder(vertx, settings, cache, registry).start();
    }

    void close(@Disposes UpstreamForwarder forwarder) {
        forwarder.close();
    }

    /** TTLs count on a monotonic clock, immune to wall-clock steps. */
    private static long monotonicMillis() {
        return System.nanoTime() / 1_000_000;
    }
}
