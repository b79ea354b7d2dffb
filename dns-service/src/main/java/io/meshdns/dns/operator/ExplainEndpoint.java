package io.meshdns.dns.operator;

import io.meshdns.dns.server.DnsServer;
import io.meshdns.model.WireFormat;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.xbill.DNS.Type;

import java.util.Locale;

/**
 * {@code GET /v1/explain?name=&type=&client=}: why a name resolves the way it does at this node. The query is
 * answered by the real query path (over the TCP path, so the UDP memo is left alone; it is counted in the metrics
 * like any query) as the caller's own address asks it, or, for an operator holding {@code meshdns.dns.explain.token},
 * as the {@code client} address asks it (its pod's namespace decides exportTo and autopath).
 *
 * <p>Bounded like the DNS listeners it stands beside: a caller the client ACL ({@code meshdns.dns.allowed-clients})
 * does not admit gets 403 (else the endpoint would be an open resolver, forwarding whatever it is given); zone
 * transfers are refused (a transfer has no single answer to explain); at most {@code max-concurrent} explains run,
 * the rest get 429, each off the event loop. What the answer is made of is {@link Explainer}'s.
 */
@ApplicationScoped
public class ExplainEndpoint {
    @Inject
    Explainer explainer;

    @Inject
    Vertx vertx;

    @Inject
    DnsServer server;

    @Inject
    ExplainConfig config;

    private java.util.concurrent.Semaphore running;

    void routes(@Observes Router router) {
        if (config.maxConcurrent() < 1) {
            throw new io.meshdns.dns.InvalidConfigException(ExplainConfig.MAX_CONCURRENT, config.maxConcurrent() + " is not 1 or more");
        }
        running = new java.util.concurrent.Semaphore(config.maxConcurrent());
        router.get("/v1/explain").handler(this::explain);
    }

    private void explain(RoutingContext ctx) {
        String caller = ctx.request().remoteAddress() == null ? null : ctx.request().remoteAddress().hostAddress();
        if (caller == null || !server.allowsClient(caller)) {
            refuse(ctx, 403, "forbidden: " + caller + " is not in meshdns.dns.allowed-clients");
            return;
        }
        String name = ctx.request().getParam("name");
        String typeName = ctx.request().getParam("type");
        String client = ctx.request().getParam("client");
        if (client != null && !client.isBlank() && !client.equals(caller) && !operator(ctx)) {
            refuse(ctx, 403, "forbidden: asking as another client (client=" + client + ") needs the operator token"
                    + " (Authorization: Bearer <meshdns.dns.explain.token>)");
            return;
        }
        if (name == null || name.isBlank()) {
            ctx.response().setStatusCode(400).putHeader("Content-Type", "text/plain").end("name is required: /v1/explain?name=<name>&type=A&client=<pod IP>\n");
            return;
        }
        int type = typeName == null || typeName.isBlank() ? Type.A : Type.value(typeName.toUpperCase(Locale.ROOT));
        if (type < 0) {
            ctx.response().setStatusCode(400).putHeader("Content-Type", "text/plain").end("unknown type " + typeName + "\n");
            return;
        }
        if (type == Type.AXFR || type == Type.IXFR) {
            refuse(ctx, 400, "zone transfers are not explained (" + Type.string(type) + "): ask for one name and type");
            return;
        }
        if (!running.tryAcquire()) {
            refuse(ctx, 429, "too many explains at once (meshdns.dns.explain.max-concurrent=" + config.maxConcurrent() + ")");
            return;
        }
        String asker = client == null || client.isBlank() ? caller : client;
        vertx.executeBlocking(() -> {
            try {
                return explainer.explain(name, type, asker);
            } finally {
                running.release();
            }
        }, false).onComplete(done -> {
            if (done.failed()) {
                ctx.response().setStatusCode(400).putHeader("Content-Type", "text/plain").end(String.valueOf(done.cause().getMessage()) + "\n");
                return;
            }
            ctx.response().putHeader("Content-Type", "application/json").end(io.vertx.core.buffer.Buffer.buffer(WireFormat.encode(done.result())));
        });
    }

    /** The caller presented the operator token (compared in constant time); false when none is configured. */
    private boolean operator(RoutingContext ctx) {
        String token = config.token().map(String::trim).orElse("");
        String header = ctx.request().getHeader("Authorization");
        if (token.isEmpty() || header == null || !header.startsWith("Bearer ")) return false;
        return java.security.MessageDigest.isEqual(token.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                header.substring("Bearer ".length()).trim().getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    private static void refuse(RoutingContext ctx, int status, String why) {
        ctx.response().setStatusCode(status).putHeader("Content-Type", "text/plain").end(why + "\n");
    }
}
