package io.meshdns.discovery.api;

import io.meshdns.discovery.catalog.CatalogAggregator;
import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

/**
 * The in-process feed for the all-in-one mode: every new version is published on the Vert.x event
 * bus address {@value #ADDRESS} as the same NDJSON line the watch stream sends (a String holding a
 * WatchEvent). A consumer that starts late asks {@value #SNAPSHOT_ADDRESS} (any body) and gets the
 * current snapshot as a WatchEvent line, then applies deltas whose fromVersion matches.
 */
@ApplicationScoped
public class EventBusPublisher {
    public static final String ADDRESS = "meshdns.catalog";
    public static final String SNAPSHOT_ADDRESS = "meshdns.catalog.snapshot";

    @Inject
    CatalogAggregator aggregator;
    @Inject
    DiscoveryRoutes routes;
    @Inject
    Vertx vertx;

    void onStart(@Observes StartupEvent ev) {
        aggregator.addListener((delta, catalog) ->
                vertx.eventBus().publish(ADDRESS, routes.encoded().deltaLine(delta).toString()));
        vertx.eventBus().consumer(SNAPSHOT_ADDRESS, msg -> {
            if (!aggregator.isReady()) {
                msg.fail(503, "initial sync in progress");
            } else {
                msg.reply(routes.encoded().snapshot(aggregator.current()).line().toString());
            }
        });
    }
}
