package io.meshdns.dns.discovery;

import io.meshdns.model.Catalog;
import io.meshdns.model.CatalogDelta;
import io.meshdns.model.WatchEvent;
import io.meshdns.model.WireFormat;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerResponse;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A minimal real HTTP server speaking discovery-service's protocol, for the client's tests until
 * discovery-service itself can run here: {@code GET /v1/snapshot} (bearer token, ETag, gzip) and
 * {@code GET /v1/watch?since=V} (chunked NDJSON of {@link WatchEvent}s encoded by {@link WireFormat}
 * from real {@link Catalog} objects). Not a discovery implementation: the test drives every change.
 */
final class RecordedDiscoveryServer implements AutoCloseable {
    private final Vertx vertx;
    private final String token;
    private final HttpServer server;
    private final List<HttpServerResponse> watchers = new CopyOnWriteArrayList<>();
    final AtomicInteger snapshotRequests = new AtomicInteger();
    final AtomicInteger notModified = new AtomicInteger();
    final AtomicInteger unauthorized = new AtomicInteger();
    /** The User-Agent of every request, in arrival order (null when a request sent none). */
    final List<String> userAgents = new CopyOnWriteArrayList<>();
    private volatile Catalog truth;

    RecordedDiscoveryServer(Vertx vertx, String token, Catalog initial, int port) throws Exception {
        this.vertx = vertx;
        this.token = token;
        this.truth = initial;
        this.server = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(port).setCompressionSupported(true))
                .requestHandler(req -> {
                    userAgents.add(req.getHeader("User-Agent"));
                    if (!("Bearer " + token).equals(req.getHeader("Authorization"))) {
                        unauthorized.incrementAndGet();
                        req.response().setStatusCode(401).end("unauthorized");
                        return;
                    }
                    Catalog c = truth;
                    String etag = "\"" + c.version() + "\"";
                    if (req.path().equals("/v1/snapshot")) {
                        snapshotRequests.incrementAndGet();
                        if (etag.equals(req.getHeader("If-None-Match"))) {
                            notModified.incrementAndGet();
                            req.response().setStatusCode(304).end();
                            return;
                        }
                        req.response().putHeader("ETag", etag).putHeader("Content-Type", "application/json")
                                .end(Buffer.buffer(WireFormat.encode(c.toSnapshot())));
                    } else if (req.path().equals("/v1/watch")) {
                        long since = Long.parseLong(req.getParam("since"));
                        HttpServerResponse resp = req.response().setChunked(true).putHeader("Content-Type", "application/x-ndjson");
                        if (since != c.version()) {
                            line(resp, WatchEvent.of(c.toSnapshot())); // too far behind: the full snapshot
                        } else {
                            line(resp, WatchEvent.heartbeat(c.version()));
                        }
                        watchers.add(resp);
                        resp.closeHandler(v -> watchers.remove(resp));
                    } else {
                        req.response().setStatusCode(404).end();
                    }
                });
        server.listen().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    int port() {
        return server.actualPort();
    }

    String url() {
        return "http://127.0.0.1:" + port();
    }

    /** Moves the truth to {@code next} and streams the delta to every open watch. */
    void advance(Catalog next) {
        CatalogDelta d = Catalog.diff(truth, next);
        truth = next;
        send(WatchEvent.of(d));
    }

    /** Streams an arbitrary event (e.g. a delta that does not apply) without changing the truth. */
    void send(WatchEvent e) {
        vertx.runOnContext(v -> watchers.forEach(w -> line(w, e)));
    }

    /** Changes the truth without telling watchers (as if the watch missed it). */
    void setTruthSilently(Catalog c) {
        truth = c;
    }

    int watchers() {
        return watchers.size();
    }

    private static void line(HttpServerResponse resp, WatchEvent e) {
        Buffer b = Buffer.buffer(WireFormat.encode(e));
        b.appendString("\n");
        resp.write(b);
    }

    @Override
    public void close() throws Exception {
        for (HttpServerResponse w : watchers) {
            vertx.runOnContext(v -> w.reset());
        }
        server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
