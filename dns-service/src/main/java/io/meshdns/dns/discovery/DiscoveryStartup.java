package io.meshdns.dns.discovery;

import io.meshdns.dns.InvalidConfigException;
import io.meshdns.dns.server.DnsServer;
import io.meshdns.dns.snapshot.SnapshotStore;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import java.net.URI;

/**
 * Registers the catalog source with the {@link SnapshotStore} before the listeners bind, so that a persisted
 * snapshot is served from the first query on. Validates {@code meshdns.dns.discovery-url} first.
 */
@ApplicationScoped
public class DiscoveryStartup {
    @Inject
    DiscoveryClientConfig config;
    @Inject
    DiscoveryRecordSource source;
    @Inject
    SnapshotStore store;

    void onStart(@Observes @Priority(DnsServer.STARTUP_PRIORITY - 50) StartupEvent event) throws Exception {
        validate(config);
        store.register(source);
    }

    static void validate(DiscoveryClientConfig config) {
        String url = config.discoveryUrl().map(String::trim).orElse("");
        if (url.isEmpty() || url.equalsIgnoreCase(DiscoveryClientConfig.EVENT_BUS)) return;
        try {
            URI uri = URI.create(url);
            if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
                throw new IllegalArgumentException("scheme must be http or https, with a host");
            }
        } catch (IllegalArgumentException e) {
            throw new InvalidConfigException("meshdns.dns.discovery-url",
                    "'" + url + "' is neither an http(s)://host:port URL nor '" + DiscoveryClientConfig.EVENT_BUS + "': " + e.getMessage());
        }
    }
}
