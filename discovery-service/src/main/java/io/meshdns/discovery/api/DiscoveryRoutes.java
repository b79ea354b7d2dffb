package io.meshdns.discovery.api;

import io.meshdns.discovery.catalog.CatalogAggregator;
import io.meshdns.discovery.cluster.ClusterManager;
import io.meshdns.discovery.cluster.ClusterWatcher;
import io.meshdns.discovery.config.DiscoveryConfig;
import io.meshdns.discovery.metrics.DiscoveryMetrics;
import io.meshdns.model.Catalog;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.ClusterStatus;
import io.meshdns.model.WireFormat;
import io.meshdns.kit.RenderedCache;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The discovery HTTP API (see discovery-service/README.md for the contract):
 * {@code GET /v1/snapshot}, {@code GET /v1/watch?since=V} and {@code GET /v1/status}.
 * Plain Vert.x routes, because the watch stream needs per-event flushing and backpressure control.
 */
@ApplicationScoped
public class DiscoveryRoutes {
    public static final String NDJSON = "application/x-ndjson";

    @Inject
    CatalogAggregator aggregator;
    @Inject
    Authenticator authenticator;
    @Inject
    DiscoveryConfig config;
    @Inject
    DiscoveryMetrics metrics;
    @Inject
    Vertx vertx;
    @Inject
    ClusterManager clusters;
    @Inject
    jakarta.enterprise.inject.Instance<io.meshdns.discovery.vip.CentralVipAllocator> vipAllocator;

    final EncodedEvents encoded = new EncodedEvents();
    final WatchClients watchClients = new WatchClients();

    /** The open watch streams (the status page). */
    public WatchClients watchClients() {
        return watchClients;
    }

    void routes(@Observes Router router) {
        router.get("/v1/snapshot").handler(rc -> authenticated(rc, this::snapshot));
        router.get("/v1/watch").handler(rc -> authenticated(rc, this::watch));
        router.get("/v1/status").handler(rc -> authenticated(rc, this::status));
        statusJson = new RenderedCache<>(vertx, () -> aggregator.current().version(), this::statusBody);
    }

    EncodedEvents encoded() {
        return encoded;
    }

    /** Runs {@code next} for a caller the stream's authentication lets in; answers 401 or 403 otherwise. */
    public void authenticated(RoutingContext rc, Consumer<RoutingContext> next) {
        String header = rc.request().getHeader(HttpHeaders.AUTHORIZATION);
        if (authenticator.isNonBlocking()) {
            decide(rc, authenticator.check(header), next);
            return;
        }
        rc.request().pause();
        vertx.executeBlocking(() -> authenticator.check(header), false).onComplete(ar -> {
            rc.request().resume();
            decide(rc, ar.succeeded() ? ar.result() : Authenticator.Decision.UNAUTHENTICATED, next);
        });
    }

    private static void decide(RoutingContext rc, Authenticator.Decision decision, Consumer<RoutingContext> next) {
        switch (decision) {
            case ALLOWED -> next.accept(rc);
            case FORBIDDEN -> rc.response().setStatusCode(403).putHeader(HttpHeaders.CONTENT_TYPE, "text/plain")
                    .end("forbidden: not in meshdns.discovery.authorized-subjects\n");
            default -> unauthorized(rc);
        }
    }

    private static void unauthorized(RoutingContext rc) {
        rc.response().setStatusCode(401)
                .putHeader("WWW-Authenticate", "Bearer realm=\"meshdns-discovery\"")
                .putHeader(HttpHeaders.CONTENT_TYPE, "text/plain")
                .end("unauthorized\n");
    }

    private void snapshot(RoutingContext rc) {
        HttpServerResponse resp = rc.response();
        if (!aggregator.isReady()) {
            resp.setStatusCode(503).putHeader("Retry-After", "1").putHeader(HttpHeaders.CONTENT_TYPE, "text/plain")
                    .end("initial sync in progress\n");
            return;
        }
        Catalog catalog = aggregator.current();
        String etag = "\"" + catalog.version() + "\"";
        resp.putHeader(HttpHeaders.ETAG, etag).putHeader(HttpHeaders.CACHE_CONTROL, "no-cache")
                .putHeader(HttpHeaders.VARY, HttpHeaders.ACCEPT_ENCODING);
        if (etagMatches(rc.request().getHeader(HttpHeaders.IF_NONE_MATCH), etag)) {
            resp.setStatusCode(304).end();
            return;
        }
        EncodedEvents.Snapshot s;
        try {
            s = encoded.snapshot(catalog);
        } catch (OutOfMemoryError | RuntimeException e) {
            resp.setStatusCode(503).putHeader("Retry-After", "5").putHeader(HttpHeaders.CONTENT_TYPE, "text/plain")
                    .end("snapshot cannot be encoded now\n");
            return;
        }
        resp.putHeader(HttpHeaders.CONTENT_TYPE, "application/json");
        if (acceptsGzip(rc.request().getHeader(HttpHeaders.ACCEPT_ENCODING))) {
            resp.putHeader(HttpHeaders.CONTENT_ENCODING, "gzip").end(s.gzip());
        } else {
            resp.end(s.json());
        }
    }

    static boolean etagMatches(String ifNoneMatch, String etag) {
        if (ifNoneMatch == null) return false;
        for (String candidate : ifNoneMatch.split(",")) {
            String c = candidate.trim();
            if (c.startsWith("W/")) c = c.substring(2);
            if (c.equals("*") || c.equals(etag)) return true;
        }
        return false;
    }

    static boolean acceptsGzip(String acceptEncoding) {
        if (acceptEncoding == null) return false;
        for (String part : acceptEncoding.toLowerCase(Locale.ROOT).split(",")) {
            String[] p = part.trim().split(";");
            if (!p[0].trim().equals("gzip")) continue;
            for (int i = 1; i < p.length; i++) {
                String q = p[i].trim();
                if (q.startsWith("q=")) {
                    try {
                        return Double.parseDouble(q.substring(2)) > 0;
                    } catch (NumberFormatException e) {
                        return false;
                    }
                }
            }
            return true;
        }
        return false;
    }

    private void watch(RoutingContext rc) {
        long since = -1;
        String sinceParam = rc.request().getParam("since");
        if (sinceParam != null && !sinceParam.isEmpty()) {
            try {
                since = Long.parseLong(sinceParam);
            } catch (NumberFormatException e) {
                rc.response().setStatusCode(400).putHeader(HttpHeaders.CONTENT_TYPE, "text/plain").end("since must be a version number\n");
                return;
            }
        }
        new WatchStream(aggregator, encoded, watchClients, metrics, config, rc.response(), rc.request().connection(),
                vertx.getOrCreateContext(), since, rc.request().remoteAddress(), rc.request().getHeader(HttpHeaders.USER_AGENT)).start();
    }

    private RenderedCache<Buffer> statusJson;

    /** Rendered off the event loop, at most once a second per catalog version, shared by concurrent callers. */
    private void status(RoutingContext rc) {
        statusJson.get().onComplete(ar -> {
            if (ar.succeeded()) {
                rc.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/json").end(ar.result());
            } else {
                rc.response().setStatusCode(503).putHeader(HttpHeaders.CONTENT_TYPE, "text/plain").end("status cannot be rendered now\n");
            }
        });
    }

    private Buffer statusBody() {
        Catalog catalog = aggregator.current();
        Map<String, Map<String, Integer>> counts = new TreeMap<>();
        for (CatalogEntry e : catalog.values()) {
            counts.computeIfAbsent(e.cluster(), c -> new TreeMap<>()).merge(e.ref().kind().name().toLowerCase(Locale.ROOT), 1, Integer::sum);
        }
        Map<String, ClusterWatcher.SyncState> sync = this.clusters.syncStates();
        List<Map<String, Object>> clusters = new ArrayList<>();
        for (ClusterStatus c : catalog.clusters()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", c.name());
            m.put("local", c.local());
            m.put("stale", c.stale());
            m.put("lastSyncEpochMillis", c.lastSyncEpochMillis());
            if (c.gatewayHealthy() != null) {
                m.put("gatewayHealthy", c.gatewayHealthy());
                m.put("gatewayHealthSinceEpochMillis", c.healthChangedEpochMillis());
            }
            ClusterWatcher.SyncState s = sync.get(c.name());
            if (s != null) {
                // Live, unlike the catalog's stale flag (which waits for stale-after): a cut watch shows within a second.
                m.put("watching", s.watching());
                m.put("lastHealthyEpochMillis", s.lastHealthyEpochMillis());
                Map<String, String> watches = new TreeMap<>();
                s.watches().forEach((kind, state) -> watches.put(kind.name().toLowerCase(Locale.ROOT), state));
                m.put("watches", watches);
            }
            m.put("entries", counts.getOrDefault(c.name(), Map.of()));
            clusters.add(m);
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("version", catalog.version());
        body.put("ready", aggregator.isReady());
        body.put("awaitingInitialSync", aggregator.awaitingInitialSync());
        body.put("entries", catalog.entries().size());
        body.put("clusters", clusters);
        body.put("watchClients", metrics.watchClients().get());
        body.put("auth", authenticator.mode().name().toLowerCase(Locale.ROOT));
        if (vipAllocator.isResolvable()) {
            var vips = vipAllocator.get();
            Map<String, Object> v = new LinkedHashMap<>();
            v.put("leader", vips.leading()); // this replica allocates and writes VIPs (holds the Lease, or runs alone)
            vips.leaseIdentity().ifPresent(id -> v.put("leaseIdentity", id));
            v.put("hosts", vips.allocations().size());
            body.put("vipAllocator", v);
        }
        return Buffer.buffer(WireFormat.encode(body));
    }
}
