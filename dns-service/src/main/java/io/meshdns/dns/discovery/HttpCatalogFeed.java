package io.meshdns.dns.discovery;

import io.meshdns.model.CatalogSnapshot;
import io.meshdns.model.WatchEvent;
import io.meshdns.model.WireFormat;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SSLOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.parsetools.RecordParser;
import org.jboss.logging.Logger;

import javax.net.ssl.SSLException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The HTTP feed, non-blocking on Vert.x: {@code GET /v1/snapshot} (If-None-Match, gzip), then
 * {@code GET /v1/watch?since=V} read as NDJSON line by line. Any failure, a stream end, an idle stream or a
 * version gap reconnects with exponential backoff and jitter (a gap also drops the ETag, forcing a full
 * snapshot). Over {@code https} the server is verified against {@link DiscoveryTls} (its CA file, server name and
 * client certificate are reread before a connection when they changed on disk); a failed handshake is logged as
 * such and retried, never downgraded to plain text.
 */
final class HttpCatalogFeed {
    private static final Logger LOG = Logger.getLogger(HttpCatalogFeed.class);

    private final Vertx vertx;
    private final String baseUrl;
    private final String token;
    private final String userAgent;
    private final Duration backoffInitial;
    private final Duration backoffMax;
    private final Duration idleTimeout;
    private final CatalogSink sink;
    private final HttpClient client;
    private final Optional<DiscoveryTls> tls;
    /** The TLS files' fingerprint the client was last configured with (see {@link DiscoveryTls#fingerprint()}). */
    private volatile String tlsFingerprint;
    private final AtomicInteger generation = new AtomicInteger();
    private volatile boolean stopped;
    private volatile String etag;
    private volatile HttpClientResponse watch;
    private int failures;

    HttpCatalogFeed(Vertx vertx, String baseUrl, String token, String userAgent, Duration backoffInitial, Duration backoffMax,
                    Duration idleTimeout, CatalogSink sink, Optional<DiscoveryTls> tls) {
        this.vertx = vertx;
        this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.token = token;
        this.userAgent = userAgent;
        this.backoffInitial = backoffInitial;
        this.backoffMax = backoffMax;
        this.idleTimeout = idleTimeout;
        this.sink = sink;
        this.tls = tls;
        HttpClientOptions options = new HttpClientOptions()
                .setDecompressionSupported(true)
                .setConnectTimeout(5000)
                .setKeepAlive(true);
        if (tls.isPresent()) {
            tlsFingerprint = tls.get().fingerprint();
            SSLOptions ssl = tls.get().sslOptions();
            options.setSsl(true).setVerifyHost(true).setTrustOptions(ssl.getTrustOptions()).setKeyCertOptions(ssl.getKeyCertOptions());
        }
        this.client = vertx.createHttpClient(options);
    }

    void start() {
        connect();
    }

    void stop() {
        stopped = true;
        generation.incrementAndGet();
        client.close();
    }

    private void connect() {
        if (stopped) return;
        int gen = generation.incrementAndGet();
        reloadTlsIfChanged()
                .compose(v -> fetchSnapshot())
                .compose(v -> openWatch(gen))
                .onFailure(e -> lost(gen, e));
    }

    /** A rotated CA bundle or client certificate is used from the next connection; open connections keep theirs. */
    private Future<Void> reloadTlsIfChanged() {
        if (tls.isEmpty() || !tls.get().changedSince(tlsFingerprint)) return Future.succeededFuture();
        String fingerprint = tls.get().fingerprint();
        SSLOptions ssl;
        try {
            ssl = tls.get().sslOptions();
        } catch (RuntimeException e) {
            return Future.failedFuture(e);
        }
        return client.updateSSLOptions(ssl, true).map(updated -> {
            tlsFingerprint = fingerprint;
            LOG.infof("discovery TLS files changed on disk; new connections use them");
            return null;
        });
    }

    private RequestOptions request(String pathAndQuery, long idleMillis) {
        RequestOptions o = new RequestOptions().setMethod(HttpMethod.GET).setAbsoluteURI(baseUrl + pathAndQuery)
                .setIdleTimeout(idleMillis)
                .putHeader(HttpHeaders.USER_AGENT, userAgent);
        Optional<String> serverName = tls.flatMap(DiscoveryTls::serverName);
        if (serverName.isPresent()) {
            // Connect to the URL's address, but verify (and ask by SNI for) the configured name's certificate.
            URI uri = URI.create(baseUrl);
            int port = uri.getPort() > 0 ? uri.getPort() : 443;
            o.setServer(SocketAddress.inetSocketAddress(port, uri.getHost())).setHost(serverName.get()).setPort(port);
        }
        if (token != null && !token.isEmpty()) o.putHeader(HttpHeaders.AUTHORIZATION, "Bearer " + token);
        return o;
    }

    private Future<Void> fetchSnapshot() {
        RequestOptions o = request("/v1/snapshot", Math.max(30_000, idleTimeout.toMillis()));
        String tag = etag;
        if (tag != null && sink.version() >= 0) o.putHeader(HttpHeaders.IF_NONE_MATCH, tag);
        return client.request(o).compose(req -> req.send()).compose(resp -> {
            if (resp.statusCode() == 304) {
                return resp.body().mapEmpty();
            }
            if (resp.statusCode() != 200) {
                return resp.body().compose(b -> Future.failedFuture("GET /v1/snapshot: HTTP " + resp.statusCode()
                        + " " + abbreviate(b.toString(StandardCharsets.UTF_8).strip())));
            }
            String newTag = resp.getHeader(HttpHeaders.ETAG);
            return resp.body().compose(body -> {
                byte[] bytes = body.getBytes();
                Promise<Void> applied = Promise.promise();
                sink.offer(() -> WatchEvent.of(WireFormat.decode(bytes, CatalogSnapshot.class))).whenComplete((outcome, err) -> {
                    if (err != null) {
                        applied.fail(err);
                    } else {
                        etag = newTag;
                        applied.complete();
                    }
                });
                return applied.future();
            });
        });
    }

    private Future<Void> openWatch(int gen) {
        RequestOptions o = request("/v1/watch?since=" + sink.version(), idleTimeout.toMillis());
        return client.request(o).compose(req -> req.send()).compose(resp -> {
            if (resp.statusCode() != 200) {
                return resp.body().compose(b -> Future.failedFuture("GET /v1/watch: HTTP " + resp.statusCode()
                        + " " + abbreviate(b.toString(StandardCharsets.UTF_8).strip())));
            }
            if (gen != generation.get()) {
                resp.request().reset();
                return Future.succeededFuture();
            }
            watch = resp;
            failures = 0;
            sink.connected(true);
            RecordParser lines = RecordParser.newDelimited("\n", line -> {
                byte[] bytes = line.getBytes();
                if (isBlank(bytes)) return;
                sink.offer(() -> WireFormat.decode(bytes, WatchEvent.class)).whenComplete((outcome, err) -> {
                    if (err != null) {
                        LOG.warnf("discovery watch: dropping the stream after a bad line: %s", err.getMessage());
                        etag = null;
                        resp.request().reset();
                    } else if (outcome == CatalogFollower.Outcome.NEEDS_SNAPSHOT) {
                        LOG.infof("discovery watch: version gap at %d, fetching a full snapshot", sink.version());
                        etag = null;
                        resp.request().reset();
                    }
                });
            });
            resp.handler(lines);
            resp.exceptionHandler(e -> lost(gen, e));
            resp.endHandler(v -> lost(gen, null));
            return Future.succeededFuture();
        });
    }

    private void lost(int gen, Throwable cause) {
        if (stopped || !generation.compareAndSet(gen, gen + 1)) return; // another path already reconnects this attempt
        watch = null;
        sink.connected(false);
        sink.reconnecting();
        long delay = backoff(failures++);
        SSLException tlsFailure = tlsFailure(cause);
        if (tlsFailure != null) {
            LOG.warnf("discovery %s: TLS handshake failed (%s); not connected, retrying in %d ms (check %s, %s, %s)", baseUrl,
                    rootMessage(tlsFailure), delay, DiscoveryTls.CA_FILE, DiscoveryTls.SERVER_NAME, DiscoveryTls.CERT_FILE);
        } else if (cause != null) {
            LOG.warnf("discovery %s unavailable (%s); retrying in %d ms", baseUrl, cause.getMessage(), delay);
        } else {
            LOG.infof("discovery watch ended; reconnecting in %d ms", delay);
        }
        vertx.setTimer(Math.max(1, delay), id -> connect());
    }

    /**
     * {@code meshdns-dns-service/<version> node=<cluster>}: discovery names the node by it in its status page and in
     * its slow-watcher cut-off log line. Without a configured cluster name, just the product and version.
     */
    static String userAgent(String version, String nodeName) {
        String product = "meshdns-dns-service/" + version;
        // A header value takes visible ASCII only: anything else in a configured name would fail every request.
        return nodeName == null || nodeName.isBlank() ? product : product + " node=" + nodeName.replaceAll("[^!-~]", "_");
    }

    /** Exponential backoff with "equal jitter": half the delay fixed, half random, so nodes don't reconnect in lockstep. */
    long backoff(int attempt) {
        long cap = backoffMax.toMillis();
        long base = backoffInitial.toMillis() << Math.min(attempt, 20);
        long d = Math.min(cap, Math.max(1, base));
        return d / 2 + ThreadLocalRandom.current().nextLong(d / 2 + 1);
    }

    private static SSLException tlsFailure(Throwable cause) {
        for (Throwable t = cause; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof SSLException ssl) return ssl;
        }
        return null;
    }

    /** Vert.x says "Failed to create SSL connection"; the JDK's cause says why (an unknown CA, a name mismatch). */
    private static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        return root == t || root.getMessage() == null ? String.valueOf(t.getMessage()) : t.getMessage() + ": " + root.getMessage();
    }

    private static boolean isBlank(byte[] b) {
        for (byte x : b) {
            if (x != ' ' && x != '\r' && x != '\t') return false;
        }
        return true;
    }

    private static String abbreviate(String s) {
        return s.length() > 200 ? s.substring(0, 200) + "..." : s;
    }
}
