package io.meshdns.dns.discovery;

import io.meshdns.model.CatalogDelta;
import io.meshdns.model.CatalogSnapshot;
import io.meshdns.model.WatchEvent;
import io.meshdns.model.WireFormat;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import org.jboss.logging.Logger;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The in-process feed (all-in-one mode): WatchEvents published by discovery-service on the event bus address
 * {@value #ADDRESS}; the initial (and any re-sync) snapshot is requested from {@value #SNAPSHOT_ADDRESS}.
 * Bodies may be WatchEvent objects (local codec) or their WireFormat JSON as String, Buffer, byte[] or JsonObject.
 */
final class EventBusCatalogFeed {
    static final String ADDRESS = "meshdns.catalog";
    static final String SNAPSHOT_ADDRESS = "meshdns.catalog.snapshot";
    private static final Logger LOG = Logger.getLogger(EventBusCatalogFeed.class);

    private final Vertx vertx;
    private final CatalogSink sink;
    private final Duration backoffInitial;
    private final Duration backoffMax;
    private MessageConsumer<Object> consumer;
    private volatile boolean stopped;
    private volatile boolean resyncing;
    private int failures;
    private String lastLoggedCause;

    EventBusCatalogFeed(Vertx vertx, CatalogSink sink, Duration backoffInitial, Duration backoffMax) {
        this.vertx = vertx;
        this.sink = sink;
        this.backoffInitial = backoffInitial;
        this.backoffMax = backoffMax;
    }

    void start() {
        consumer = vertx.eventBus().consumer(ADDRESS, msg -> {
            Object body = msg.body();
            sink.offer(() -> toEvent(body)).whenComplete((outcome, err) -> {
                if (err != null) {
                    LOG.warnf("event bus %s: bad message (%s), re-syncing", ADDRESS, err.getMessage());
                    resync();
                } else if (outcome == CatalogFollower.Outcome.NEEDS_SNAPSHOT) {
                    resync();
                }
            });
        });
        resync();
    }

    void stop() {
        stopped = true;
        if (consumer != null) consumer.unregister();
    }

    private void resync() {
        if (stopped || resyncing) return;
        resyncing = true;
        vertx.eventBus().request(SNAPSHOT_ADDRESS, sink.version(), new DeliveryOptions().setSendTimeout(5000)).onComplete(ar -> {
            if (ar.succeeded()) {
                Object body = ar.result().body();
                sink.offer(() -> toEvent(body)).whenComplete((outcome, err) -> {
                    resyncing = false;
                    if (err == null) {
                        failures = 0;
                        lastLoggedCause = null;
                        sink.connected(true);
                    } else {
                        retry(err);
                    }
                });
            } else {
                resyncing = false;
                retry(ar.cause());
            }
        });
    }

    private void retry(Throwable cause) {
        if (stopped) return;
        sink.connected(false);
        sink.reconnecting();
        long cap = backoffMax.toMillis();
        long d = Math.min(cap, Math.max(1, backoffInitial.toMillis() << Math.min(failures++, 20)));
        long delay = d / 2 + ThreadLocalRandom.current().nextLong(d / 2 + 1);
        // In one process the consumer asks while discovery is still starting ("No handlers", then "initial sync in
        // progress") and the short in-process backoff retries many times: each cause once at INFO, repeats at DEBUG.
        String why = cause.getMessage();
        boolean repeat = Objects.equals(why, lastLoggedCause);
        lastLoggedCause = why;
        LOG.logf(repeat ? Logger.Level.DEBUG : Logger.Level.INFO, "event bus snapshot from %s unavailable (%s); retrying in %d ms",
                SNAPSHOT_ADDRESS, why, delay);
        vertx.setTimer(Math.max(1, delay), id -> resync());
    }

    static WatchEvent toEvent(Object body) {
        if (body instanceof WatchEvent e) return e;
        if (body instanceof CatalogSnapshot s) return WatchEvent.of(s);
        if (body instanceof CatalogDelta d) return WatchEvent.of(d);
        if (body instanceof String s) return decodeJson(s.getBytes(StandardCharsets.UTF_8));
        if (body instanceof Buffer b) return decodeJson(b.getBytes());
        if (body instanceof byte[] b) return decodeJson(b);
        if (body instanceof JsonObject j) return decodeJson(j.encode().getBytes(StandardCharsets.UTF_8));
        throw new IllegalArgumentException("unsupported event bus body " + (body == null ? "null" : body.getClass().getName()));
    }

    /** A WatchEvent line, or a bare CatalogSnapshot (what /v1/snapshot returns) as a snapshot event. */
    private static WatchEvent decodeJson(byte[] json) {
        WatchEvent e = WireFormat.decode(json, WatchEvent.class);
        if (e.type() != null) return e;
        return WatchEvent.of(WireFormat.decode(json, CatalogSnapshot.class));
    }
}
