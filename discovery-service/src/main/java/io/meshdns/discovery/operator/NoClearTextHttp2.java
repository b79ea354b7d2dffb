package io.meshdns.discovery.operator;

import io.quarkus.vertx.http.HttpServerOptionsCustomizer;
import io.vertx.core.http.HttpServerOptions;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * No clear-text HTTP/2 (h2c) on the plain HTTP port; HTTP/2 stays on over TLS, chosen by ALPN. To tell an h2c
 * preface from HTTP/1 the server must wait for a connection's first bytes, and Vert.x holds such a connection
 * outside {@code quarkus.http.limits.max-connections} while it waits: 700 connections that never send a byte
 * took 700 descriptors until the idle timeout. Without h2c every connection is HTTP/1 from its accept and
 * counts against the cap at once. (Turning HTTP/2 off altogether is not an option here: Vert.x 4.5 then fails
 * every TLS handshake of this server.) The nodes' watch streams are HTTP/1.1 chunked; nothing of ours speaks h2c.
 */
@ApplicationScoped
public class NoClearTextHttp2 implements HttpServerOptionsCustomizer {
    @Override
    public void customizeHttpServer(HttpServerOptions options) {
        options.setHttp2ClearTextEnabled(false);
    }
}
