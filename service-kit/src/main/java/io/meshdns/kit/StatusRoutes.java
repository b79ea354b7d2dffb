package io.meshdns.kit;

import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A service's HTML status page on its HTTP port: {@code /}, {@code /status} and {@code /status/<service>} (the last
 * unique in the edge app, which serves several services' pages on one port), behind the {@link HostGuard}, rendered
 * at most once a second per state version and off the event loop ({@link RenderedCache}).
 */
public final class StatusRoutes {
    private StatusRoutes() {
    }

    /** Installs the page; {@code version} changes whenever what the page shows may have changed beyond its clock. */
    public static RenderedCache<String> install(Router router, Vertx vertx, String service, LongSupplier version,
                                                Supplier<String> render) {
        RenderedCache<String> page = new RenderedCache<>(vertx, version, render);
        HostGuard.install(router);
        for (String path : new String[] {"/status", "/status/" + service, "/"}) {
            router.get(path).handler(ctx -> serve(ctx, page));
        }
        return page;
    }

    /** Writes the cached rendering (a 503 with a plain line if the rendering failed). */
    public static void serve(RoutingContext ctx, RenderedCache<String> page) {
        page.get().onComplete(r -> {
            if (ctx.response().ended() || ctx.response().closed()) return;
            if (r.succeeded()) {
                ctx.response().putHeader("Content-Type", "text/html; charset=utf-8").putHeader("Cache-Control", "no-store").end(r.result());
            } else {
                ctx.response().setStatusCode(503).putHeader("Content-Type", "text/plain").end("the status page cannot be rendered now\n");
            }
        });
    }
}
