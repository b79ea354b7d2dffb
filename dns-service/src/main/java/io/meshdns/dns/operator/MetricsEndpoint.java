package io.meshdns.dns.operator;

import io.meshdns.dns.InvalidConfigException;
import io.meshdns.model.operator.PrometheusText;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.meshdns.kit.HostGuard;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.util.concurrent.TimeUnit;

/**
 * The Prometheus exposition where CoreDNS users look for it: {@code /metrics} and {@code /q/metrics} on the
 * HTTP port, and {@code /metrics} on {@code meshdns.dns.metrics.port} (9153 in CoreDNS) when set. Bucket
 * bounds are written as Go's client writes them ({@link PrometheusText}). Micrometer's own endpoint sits at
 * {@code quarkus.micrometer.export.prometheus.path} ({@code /q/metrics/micrometer}).
 */
@ApplicationScoped
public class MetricsEndpoint {
    private static final Logger LOG = Logger.getLogger(MetricsEndpoint.class);

    @Inject
    PrometheusMeterRegistry registry;

    @Inject
    OperatorConfig config;

    @Inject
    Vertx vertx;

    private volatile HttpServer coreDnsPort;

    void routes(@Observes Router router) {
        router.get("/metrics").handler(this::scrape);
        router.get("/q/metrics").handler(this::scrape);
    }

    void start(@Observes StartupEvent event) throws Exception {
        if (config.port().isEmpty()) {
            return;
        }
        int port = config.port().getAsInt();
        if (port < 0 || port > 65535) {
            throw new InvalidConfigException("meshdns.dns.metrics.port", port + " is outside 0..65535");
        }
        Router router = Router.router(vertx);
        HostGuard.install(router);
        router.get("/metrics").handler(this::scrape);
        try {
            coreDnsPort = vertx.createHttpServer(new HttpServerOptions().setHost(config.bindAddress()).setPort(port))
                    .requestHandler(router).listen().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new InvalidConfigException("meshdns.dns.metrics.port", "cannot listen on " + config.bindAddress() + ":" + port
                    + ": " + cause.getMessage());
        }
        LOG.infof("metrics on http://%s:%d/metrics", config.bindAddress(), coreDnsPort.actualPort());
    }

    void stop(@Observes ShutdownEvent event) {
        HttpServer server = coreDnsPort;
        if (server != null) {
            server.close();
        }
    }

    /** The port of the {@code meshdns.dns.metrics.port} listener (its own pick for 0); -1 without one. */
    public int metricsPort() {
        HttpServer server = coreDnsPort;
        return server == null ? -1 : server.actualPort();
    }

    private void scrape(RoutingContext ctx) {
        // scrape() walks every meter: off the event loop
        String contentType = PrometheusText.contentTypeFor(ctx.request().getHeader("Accept"));
        vertx.executeBlocking(() -> PrometheusText.goStyle(registry.scrape(contentType)), false).onComplete(done -> {
            if (done.failed()) {
                ctx.response().setStatusCode(500).end(String.valueOf(done.cause()));
                return;
            }
            ctx.response().putHeader("Content-Type", contentType).end(done.result());
        });
    }
}
