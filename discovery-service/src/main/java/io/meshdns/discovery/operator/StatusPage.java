package io.meshdns.discovery.operator;

import io.meshdns.discovery.api.DiscoveryRoutes;
import io.meshdns.discovery.api.WatchClients;
import io.meshdns.discovery.catalog.CatalogAggregator;
import io.meshdns.discovery.config.DiscoveryConfig;
import io.meshdns.model.Catalog;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.ClusterStatus;
import io.meshdns.model.operator.HtmlPage;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.meshdns.kit.HostGuard;
import io.meshdns.kit.RenderedCache;
import io.meshdns.kit.StatusRoutes;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * discovery-service's status page, {@code GET /status} (and {@code /}) on the HTTP port: plain HTML, no script,
 * behind the stream's token (from this machine's loopback without one, for {@code kubectl port-forward}). It reads the catalog the watch streams send:
 * clusters with their staleness, the version, the open watch streams (one per following node) and the
 * ServiceEntry VIP table, addresses from the ServiceEntry (spec or Istio) apart from those meshdns allocated.
 */
@ApplicationScoped
public class StatusPage {
    @Inject
    CatalogAggregator aggregator;

    @Inject
    DiscoveryRoutes routes;

    @Inject
    DiscoveryConfig config;

    @Inject
    Vertx vertx;

    void routes(@Observes Router router) {
        page = new RenderedCache<>(vertx, () -> aggregator.current().version(), this::render);
        HostGuard.install(router);
        router.get("/status").handler(this::serve);
        router.get("/status/discovery").handler(this::serve); // unique in the edge app, which serves several pages on one port
        router.get("/").handler(this::serve);
    }

    private volatile RenderedCache<String> page;

    /**
     * Behind the stream's authentication (the page names every cluster, node and ServiceEntry host), except from
     * this machine's loopback when {@code meshdns.discovery.auth.status-page-from-loopback} allows it; rendered
     * off the event loop and shared (see {@link RenderedCache}).
     */
    private void serve(RoutingContext ctx) {
        if (config.auth().statusPageFromLoopback() && fromLoopback(ctx)) {
            serveRendered(ctx);
        } else {
            routes.authenticated(ctx, this::serveRendered);
        }
    }

    private void serveRendered(RoutingContext ctx) {
        StatusRoutes.serve(ctx, page);
    }

    /** The peer's own address, 127.0.0.1 or ::1 exactly: a proxy on another loopback address is not this machine's port-forward. */
    static boolean fromLoopback(RoutingContext ctx) {
        SocketAddress peer = ctx.request().connection().remoteAddress();
        if (peer == null || peer.hostAddress() == null) {
            return false;
        }
        String host = peer.hostAddress();
        return host.equals("127.0.0.1") || host.equals("0:0:0:0:0:0:0:1") || host.equals("::1");
    }

    String render() {
        Catalog catalog = aggregator.current();
        HtmlPage page = new HtmlPage("meshdns discovery-service");
        page.section("Catalog").facts("catalog",
                "version", String.valueOf(catalog.version()),
                "ready", aggregator.isReady() ? "yes" : "no (initial sync in progress)",
                "entries", String.valueOf(catalog.entries().size()),
                "local cluster", config.clusterName(),
                "stale after", config.staleAfter().toString());

        Map<String, Map<String, Integer>> counts = new TreeMap<>();
        for (CatalogEntry e : catalog.values()) {
            counts.computeIfAbsent(e.cluster(), c -> new TreeMap<>()).merge(e.ref().kind().name().toLowerCase(Locale.ROOT), 1, Integer::sum);
        }
        List<List<String>> clusters = new ArrayList<>();
        for (ClusterStatus c : catalog.clusters()) {
            StringBuilder entries = new StringBuilder();
            counts.getOrDefault(c.name(), Map.of()).forEach((kind, n) -> entries.append(entries.length() == 0 ? "" : ", ").append(n).append(' ').append(kind));
            String gateway = c.gatewayHealthy() == null ? "not probed"
                    : (c.gatewayHealthy() ? "up" : "DOWN") + " since " + HtmlPage.ago(c.healthChangedEpochMillis());
            clusters.add(List.of(c.name(), c.local() ? "local" : "remote", c.stale() ? "stale" : "fresh",
                    HtmlPage.ago(c.lastSyncEpochMillis()), entries.toString(), String.join(", ", c.gatewayAddresses()), gateway));
        }
        page.section("Clusters").table("clusters", List.of("cluster", "role", "state", "last sync", "entries", "gateways", "gateway probe"), clusters,
                "no clusters known yet");

        List<List<String>> watchers = new ArrayList<>();
        for (WatchClients.Client w : routes.watchClients().open()) {
            long behind = w.lastSentVersion() < 0 ? -1 : catalog.version() - w.lastSentVersion();
            watchers.add(List.of(w.remote(), w.userAgent(), HtmlPage.ago(w.connectedEpochMillis()),
                    w.lastSentVersion() < 0 ? "nothing yet" : String.valueOf(w.lastSentVersion()),
                    behind < 0 ? "" : behind == 0 ? "up to date" : behind + " behind", w.lagging() ? "lagging (skips deltas)" : "ok"));
        }
        page.section("Watchers (nodes following the catalog)").table("watchers",
                List.of("node", "client", "connected", "version sent", "catalog", "stream"), watchers, "no node is watching");

        List<List<String>> vips = new ArrayList<>();
        for (CatalogEntry e : catalog.values()) {
            if (!(e instanceof CatalogEntry.ServiceEntry se)) continue;
            for (String host : se.hosts()) {
                List<String> own = se.allocatedVips().getOrDefault(host, List.of());
                String source = !se.addresses().isEmpty() ? "ServiceEntry addresses" : own.isEmpty() ? "none" : "meshdns";
                vips.add(List.of(host, se.cluster() + "/" + se.namespace() + "/" + se.name(), String.join(", ", se.addresses()),
                        String.join(", ", own), source));
            }
        }
        vips.sort((a, b) -> a.get(0).compareTo(b.get(0)));
        page.section("ServiceEntry VIPs").table("vips", List.of("host", "ServiceEntry", "addresses (spec / Istio)", "allocated by meshdns", "answered from"),
                vips, "no ServiceEntries");
        return page.render();
    }
}
