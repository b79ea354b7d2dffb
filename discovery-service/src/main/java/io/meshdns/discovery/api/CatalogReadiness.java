package io.meshdns.discovery.api;

import io.meshdns.discovery.catalog.CatalogAggregator;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready once every source known at start listed once (or meshdns.discovery.initial-sync-timeout passed),
 * and while the newest snapshot could be encoded (a replica that answers every /v1/snapshot with 503 is not ready).
 */
@Readiness
@ApplicationScoped
public class CatalogReadiness implements HealthCheck {
    @Inject
    CatalogAggregator aggregator;
    @Inject
    DiscoveryRoutes routes;

    @Override
    public HealthCheckResponse call() {
        String encodeFailure = routes.encoded().failure();
        return HealthCheckResponse.named("discovery-catalog")
                .status(aggregator.isReady() && encodeFailure == null)
                .withData("snapshot", encodeFailure == null ? "ok" : encodeFailure)
                .withData("version", aggregator.current().version())
                .withData("entries", aggregator.current().entries().size())
                .withData("awaiting", String.join(",", aggregator.awaitingInitialSync()))
                .build();
    }
}
