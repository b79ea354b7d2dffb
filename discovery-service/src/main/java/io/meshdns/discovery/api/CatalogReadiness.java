package io.meshdns.discovery.api;

import io.meshdns.discovery.catalog.CatalogAggregator;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Ready once every source known at start listed once (or meshdns.discovery.initial-sync-timeout passed). */
@Readiness
@ApplicationScoped
public class CatalogReadiness implements HealthCheck {
    @Inject
    CatalogAggregator aggregator;

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("discovery-catalog")
                .status(aggregator.isReady())
                .withData("version", aggregator.current().version())
                .withData("entries", aggregator.current().entries().size())
                .withData("awaiting", String.join(",", aggregator.awaitingInitialSync()))
                .build();
    }
}
