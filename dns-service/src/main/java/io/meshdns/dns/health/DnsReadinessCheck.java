package io.meshdns.dns.health;

import io.meshdns.dns.server.DnsServer;
import io.meshdns.dns.snapshot.SnapshotStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Ready = both listeners bound and the first record snapshot loaded (/q/health/ready). */
@Readiness
@ApplicationScoped
public class DnsReadinessCheck implements HealthCheck {
    @Inject
    DnsServer server;
    @Inject
    SnapshotStore store;

    @Override
    public HealthCheckResponse call() {
        boolean listening = server.isListening();
        boolean loaded = store.loaded();
        return HealthCheckResponse.named("dns")
                .status(listening && loaded)
                .withData("port", server.boundPort())
                .withData("snapshotVersion", store.current().version())
                .build();
    }
}
