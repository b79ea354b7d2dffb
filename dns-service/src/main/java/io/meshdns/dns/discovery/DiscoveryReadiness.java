package io.meshdns.dns.discovery;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready once a catalog is loaded (from the snapshot file or from discovery), and it stays ready while
 * discovery is down: the node keeps answering from its last catalog. A node without a discovery feed does
 * not wait for one.
 */
@Readiness
@ApplicationScoped
public class DiscoveryReadiness implements HealthCheck {
    @Inject
    DiscoveryRecordSource source;

    @Override
    public HealthCheckResponse call() {
        boolean up = !source.configured() || source.loaded();
        return HealthCheckResponse.named("discovery-feed").status(up).withData("version", source.version()).build();
    }
}
