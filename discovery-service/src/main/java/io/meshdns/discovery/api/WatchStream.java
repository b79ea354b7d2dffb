package io.meshdns.discovery.api;

import io.meshdns.discovery.catalog.CatalogAggregator;
import io.meshdns.discovery.config.DiscoveryConfig;
import io.meshdns.discovery.metrics.DiscoveryMetrics;
import io.meshdns.model.Catalog;
import io.meshdns.model.CatalogDelta;
import io.vertx.core.Context;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import org.jboss.logging.Logger;

/**
 * One client's stream. Everything runs on the connection's event loop; the aggregator's
 * listener only hops onto it. A client too slow to drain its socket (more than
 * {@code watch.max-queued-bytes} unsent) skips deltas and gets one fresh snapshot when it catches
 * up, so a slow node never makes discovery buffer without bound; one that stays behind for
 * {@code watch.max-lag} is cut off, so a stalled node does not keep its connection and buffers forever.
 */
final class WatchStream implements CatalogAggregator.Listener, WatchClients.Client {
    private static final Logger LOG = Logger.getLogger(WatchStream.class);
    private final CatalogAggregator aggregator;
    private final EncodedEvents encoded;
    private final WatchClients watchClients;
    private final DiscoveryMetrics metrics;
    private final DiscoveryConfig config;
    private final HttpServerResponse resp;
    private final HttpConnection connection;
    private final Context context;
    private final String remote;
    private final String userAgent;
    private final long connectedAt = System.currentTimeMillis();
    private volatile long lastSent;
    private volatile boolean lagging;
    private boolean closed;
    private long heartbeatTimer = -1;
    private long lagTimer = -1;
    private long behindSinceNanos;
    private Runnable cancel = () -> {
    };

    WatchStream(CatalogAggregator aggregator, EncodedEvents encoded, WatchClients watchClients, DiscoveryMetrics metrics,
                DiscoveryConfig config, HttpServerResponse resp, HttpConnection connection, Context context, long since,
                Object remote, String userAgent) {
        this.aggregator = aggregator;
        this.encoded = encoded;
        this.watchClients = watchClients;
        this.metrics = metrics;
        this.config = config;
        this.resp = resp;
        this.connection = connection;
        this.context = context;
        this.lastSent = since;
        this.remote = String.valueOf(remote);
        this.userAgent = userAgent == null ? "" : userAgent;
    }

    @Override
    public String remote() {
        return remote;
    }

    @Override
    public String userAgent() {
        return userAgent;
    }

    @Override
    public long connectedEpochMillis() {
        return connectedAt;
    }

    @Override
    public long lastSentVersion() {
        return lastSent;
    }

    @Override
    public boolean lagging() {
        return lagging;
    }

    void start() {
        // HTTP/1.1: one stream per connection, so this is the connection's own bound (Netty's high-water mark).
        resp.setWriteQueueMaxSize((int) config.watch().maxQueuedBytesValue());
        resp.setChunked(true).putHeader(HttpHeaders.CONTENT_TYPE, DiscoveryRoutes.NDJSON)
                .putHeader(HttpHeaders.CACHE_CONTROL, "no-cache").putHeader("X-Accel-Buffering", "no");
        resp.closeHandler(v -> close());
        resp.exceptionHandler(t -> close());
        resp.drainHandler(v -> onDrain());
        metrics.watchClients().incrementAndGet();
        watchClients.opened(this);
        CatalogAggregator.Subscription sub = aggregator.subscribe(lastSent, this);
        cancel = sub.cancel();
        if (!sub.ready()) {
            // No version exists yet, so the client's since names a catalog this process never served
            // (another replica's, or one from before a restart): it gets the first version whole.
            lastSent = -1;
        }
        if (sub.ready()) {
            if (sub.catchUp() == null) {
                sendSnapshot(sub.current());
            } else {
                for (CatalogDelta d : sub.catchUp()) sendDelta(d);
            }
        }
        // Send the headers now: a client must know it is connected even when nothing changes.
        if (!resp.headWritten()) resp.write(Buffer.buffer());
        heartbeatTimer = context.owner().setPeriodic(config.heartbeatInterval().toMillis(), id -> {
            if (!closed && !lagging) resp.write(EncodedEvents.heartbeatLine(lastSent >= 0 ? lastSent : aggregator.current().version()));
        });
    }

    @Override
    public void onVersion(CatalogDelta delta, Catalog catalog) {
        // Called under the catalog lock: encode (once for all clients) and hop to the event loop.
        Buffer line = encoded.deltaLine(delta);
        context.runOnContext(v -> deliver(delta, catalog, line));
    }

    private void deliver(CatalogDelta delta, Catalog catalog, Buffer line) {
        if (closed || lagging || delta.toVersion() <= lastSent) return;
        if (delta.fromVersion() == lastSent) {
            write(line, delta.toVersion());
        } else {
            sendSnapshot(catalog);
        }
    }

    private void sendDelta(CatalogDelta d) {
        write(encoded.deltaLine(d), d.toVersion());
    }

    private void sendSnapshot(Catalog catalog) {
        write(encoded.snapshot(catalog).line(), catalog.version());
    }

    private void write(Buffer line, long version) {
        resp.write(line);
        lastSent = version;
        if (!lagging && resp.writeQueueFull()) fellBehind();
    }

    private void fellBehind() {
        lagging = true;
        behindSinceNanos = System.nanoTime();
        lagTimer = context.owner().setTimer(config.watch().maxLag().toMillis(), id -> {
            lagTimer = -1;
            if (!closed && lagging) cutOff();
        });
    }

    private void cutOff() {
        long behindMillis = (System.nanoTime() - behindSinceNanos) / 1_000_000;
        metrics.watchCutOff();
        LOG.warnf("watch stream of %s (user agent '%s') cut off: more than %d bytes unsent for %d ms "
                        + "(meshdns.discovery.watch.max-lag=%s); last version sent %d, current %d; it has to reconnect",
                remote, userAgent, config.watch().maxQueuedBytesValue(), behindMillis, config.watch().maxLag(),
                lastSent, aggregator.current().version());
        close();
        // Drops what is still queued for it: the client resumes from the last version it applied.
        connection.close();
    }

    private void onDrain() {
        if (closed || !lagging) return;
        lagging = false;
        if (lagTimer >= 0) context.owner().cancelTimer(lagTimer);
        lagTimer = -1;
        Catalog now = aggregator.current();
        if (now.version() != lastSent) sendSnapshot(now);
    }

    private void close() {
        if (closed) return;
        closed = true;
        cancel.run();
        if (heartbeatTimer >= 0) context.owner().cancelTimer(heartbeatTimer);
        if (lagTimer >= 0) context.owner().cancelTimer(lagTimer);
        metrics.watchClients().decrementAndGet();
        watchClients.closed(this);
    }
}
