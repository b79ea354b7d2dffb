package io.meshdns.dns.forward;

import io.meshdns.dns.cache.CacheConfig;
import io.meshdns.dns.cache.CacheMetrics;
import io.meshdns.dns.metrics.DnsMetrics;
import io.meshdns.dns.cache.CacheSettings;
import io.meshdns.dns.cache.DnsCache;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * Builds the {@link Forwarder} bean from config at start, so that bad forwarding or cache config
 * fails the start with a message naming the key.
 */
@ApplicationScoped
public class ForwarderProducer {

    @Produces
    @Singleton
    @Startup
    UpstreamForwarder forwarder(Vertx vertx, ForwardConfig forwardConfig, CacheConfig cacheConfig,
                                @ConfigProperty(name = "meshdns.dns.bind-address", defaultValue = "127.0.0.1") String bindAddress,
                                @ConfigProperty(name = "meshdns.dns.port", defaultValue = "5353") String port,
                                MeterRegistry registry, DnsMetrics metrics) {
        // Our own listen address (the listener's keys, read here so forwarding does not depend on the listener
        // package that uses it), to refuse an upstream that is ourselves. The listener validates these keys.
        ForwardSettings settings = ForwardSettings.from(forwardConfig, bindAddress.trim(), portOrZero(port));
        CacheSettings cacheSettings = CacheSettings.from(cacheConfig);
        DnsCache cache = null;
        if (cacheSettings.enabled()) {
            cache = new DnsCache(cacheSettings, ForwarderProducer::monotonicMillis);
            DnsCache bound = cache;
            metrics.whenServerKnown(serverLabel -> CacheMetrics.bind(bound, registry, serverLabel));
        }
        return new UpstreamForwarder(vertx, settings, cache, registry).start();
    }

    private static int portOrZero(String port) {
        try {
            return Integer.parseInt(port.trim());
        } catch (NumberFormatException e) {
            return 0; // invalid: ServerSettings fails the start naming meshdns.dns.port
        }
    }

    void close(@Disposes UpstreamForwarder forwarder) {
        forwarder.close();
    }

    /** TTLs count on a monotonic clock, immune to wall-clock steps. */
    private static long monotonicMillis() {
        return System.nanoTime() / 1_000_000;
    }
}
