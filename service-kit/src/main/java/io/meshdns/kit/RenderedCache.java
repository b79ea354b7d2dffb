package io.meshdns.kit;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A page rendered from a service's whole state (a status page, discovery's {@code /v1/status}), kept so that callers
 * cannot make the service walk 100,000 entries per request, and rendered on a worker thread so that the walk never
 * holds the event loop (discovery's watch streams, the DNS listeners' neighbours). A rendering serves every caller for up to
 * {@link #MAX_AGE_MILLIS} while the catalog version is unchanged (open streams and ages move without a
 * version, hence the age limit); callers that arrive during a rendering wait for that same one.
 */
public final class RenderedCache<T> {
    public static final long MAX_AGE_MILLIS = 1_000;

    private record Rendering<T>(long version, long startedMillis, Future<T> result) {
    }

    private final Vertx vertx;
    private final LongSupplier version;
    private final Supplier<T> render;
    private final AtomicReference<Rendering<T>> current = new AtomicReference<>();

    public RenderedCache(Vertx vertx, LongSupplier version, Supplier<T> render) {
        this.vertx = vertx;
        this.version = version;
        this.render = render;
    }

    public Future<T> get() {
        long now = System.currentTimeMillis();
        long v = version.getAsLong();
        Rendering<T> seen = current.get();
        if (seen != null && seen.version == v && now - seen.startedMillis < MAX_AGE_MILLIS) {
            return seen.result;
        }
        if (seen != null && !seen.result.isComplete()) {
            return seen.result; // one rendering at a time: a newer one starts once this one is done
        }
        Promise<T> promise = Promise.promise();
        Rendering<T> fresh = new Rendering<>(v, now, promise.future());
        if (!current.compareAndSet(seen, fresh)) {
            return current.get().result; // another caller started it a moment ago
        }
        vertx.executeBlocking(render::get, false).onComplete(promise);
        return fresh.result;
    }
}
