package io.meshdns.dns.health;

import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;

/**
 * Live while the process answers HTTP. Deliberately not tied to upstreams or the snapshot: a
 * restart would not fix those, and restarting a node's only resolver makes every lookup fail.
 */
@Liveness
@ApplicationScoped
public class DnsLivenessCheck implements HealthCheck {
    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.up("dns-process");
    }
}
