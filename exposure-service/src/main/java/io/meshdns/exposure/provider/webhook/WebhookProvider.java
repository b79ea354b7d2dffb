package io.meshdns.exposure.provider.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.plan.Changes;
import io.meshdns.exposure.plan.DomainFilter;
import io.meshdns.exposure.provider.Provider;
import io.meshdns.exposure.provider.ProviderException;
import io.meshdns.exposure.provider.ProviderKeys;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jboss.logging.Logger;

/**
 * Client of ExternalDNS's webhook provider protocol (the one its {@code provider/webhook} speaks), so
 * every community webhook provider works behind meshdns:
 * <ul>
 *   <li>every request carries {@code Accept} (and a body {@code Content-Type}) of
 *       {@value #MEDIA_TYPE}; every response with a body must come back with exactly that Content-Type;</li>
 *   <li>{@code GET /} negotiates once, before the first other call: the body is the provider's
 *       domain filter, and names outside it are invisible to the plan;</li>
 *   <li>{@code GET /records} (200) lists the RRsets; {@code POST /records} (expects 204) applies
 *       changes; {@code POST /adjustendpoints} (200) lets the provider rewrite desired endpoints;</li>
 *   <li>a 5xx answer or a connection failure is retried with back-off (100 ms doubling, at most
 *       {@code max-attempts} tries); a 4xx is not retried, and on {@code POST /records} it counts as a
 *       rejection of the data, so the batch is split and the rest still published; a 3xx is not followed
 *       and is permanent, like a 4xx read;</li>
 *   <li>every request has one total deadline, body included (the JDK client's own timeout ends at the
 *       headers, so a body trickling in would hold the pass forever), and a response body above
 *       {@code max-response-bytes} (ExternalDNS's 32 MiB) is refused without being read further;</li>
 *   <li>credentials in the URL ({@code http://user:password@host}) are sent as Basic authentication,
 *       as Go's client does, and never printed: logs and errors name the URL without them.</li>
 * </ul>
 */
public final class WebhookProvider implements Provider {

    private static final Logger LOG = Logger.getLogger(WebhookProvider.class);
    public static final String MEDIA_TYPE = "application/external.dns.webhook+json;version=1";

    /** ExternalDNS's default cap on a webhook request body (its server answers 413 above it). */
    public static final long DEFAULT_MAX_RESPONSE_BYTES = 32L << 20;

    private final URI base;
    /** {@link #base} as printed: the same URL without credentials. */
    private final String printable;
    private final Optional<String> authorization;
    private final Duration timeout;
    private final int maxAttempts;
    private final long maxResponseBytes;
    private final HttpClient http;
    private volatile boolean negotiated;
    private volatile Optional<DomainFilter> domainFilter = Optional.empty();

    public WebhookProvider(URI base, Duration timeout, int maxAttempts) {
        this(base, timeout, maxAttempts, DEFAULT_MAX_RESPONSE_BYTES);
    }

    public WebhookProvider(URI base, Duration timeout, int maxAttempts, long maxResponseBytes) {
        URI withoutCredentials = ProviderKeys.withoutUserInfo(base);
        String s = withoutCredentials.toString();
        this.base = URI.create(s.endsWith("/") ? s : s + "/");
        this.printable = this.base.toString();
        this.authorization = Optional.ofNullable(base.getUserInfo()).map(u ->
                "Basic " + Base64.getEncoder().encodeToString(u.getBytes(StandardCharsets.UTF_8)));
        this.timeout = timeout;
        this.maxAttempts = maxAttempts;
        this.maxResponseBytes = maxResponseBytes;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER).build();
    }

    @Override
    public String describe() {
        return "webhook " + printable;
    }

    @Override
    public Optional<DomainFilter> domainFilter() {
        return domainFilter;
    }

    private synchronized void negotiate() throws ProviderException {
        if (negotiated) return;
        JsonNode filter = json(send("GET", "", null, 200));
        try {
            domainFilter = EndpointJson.domainFilter(filter);
        } catch (RuntimeException e) {
            throw new ProviderException("webhook " + printable + ": the negotiated domain filter is invalid: " + e.getMessage(), e);
        }
        negotiated = true;
        LOG.infof("webhook %s negotiated; domain filter %s", printable, domainFilter.map(Object::toString).orElse("(none: every name)"));
    }

    @Override
    public List<Endpoint> records() throws ProviderException {
        negotiate();
        var skipped = new ArrayList<String>();
        List<Endpoint> out;
        try {
            out = EndpointJson.readAll(json(send("GET", "records", null, 200)), skipped);
        } catch (IllegalArgumentException e) {
            throw new ProviderException("webhook " + printable + " GET /records: " + e.getMessage(), e);
        }
        skipped.forEach(s -> LOG.debugf("webhook %s: skipping record that does not fit the endpoint model: %s", printable, s));
        return out;
    }

    @Override
    public void apply(Changes changes) throws ProviderException {
        if (changes.isEmpty()) return;
        negotiate();
        send("POST", "records", EndpointJson.write(changes).toString(), 204);
    }

    @Override
    public List<Endpoint> adjust(List<Endpoint> desired) throws ProviderException {
        negotiate();
        var skipped = new ArrayList<String>();
        List<Endpoint> out;
        try {
            out = EndpointJson.readAll(json(send("POST", "adjustendpoints", EndpointJson.write(desired).toString(), 200)), skipped);
        } catch (IllegalArgumentException e) {
            throw new ProviderException("webhook " + printable + " POST /adjustendpoints: " + e.getMessage(), e);
        }
        skipped.forEach(s -> LOG.warnf("webhook %s: adjusted endpoint dropped: %s", printable, s));
        return out;
    }

    private JsonNode json(String body) throws ProviderException {
        try {
            return EndpointJson.MAPPER.readTree(body);
        } catch (IOException e) {
            throw new ProviderException("webhook " + printable + ": response is not JSON: " + e.getMessage(), e);
        }
    }

    /** One request with retries on 5xx, connection failures and a missed deadline; returns the body of the expected status. */
    private String send(String method, String path, String body, int expected) throws ProviderException {
        URI uri = base.resolve(path);
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(timeout).header("Accept", MEDIA_TYPE);
        authorization.ifPresent(a -> b.header("Authorization", a));
        if (body != null) {
            b.header("Content-Type", MEDIA_TYPE).method(method, HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        } else {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        }
        HttpRequest request = b.build();
        String what = method + " /" + path;
        String where = "webhook " + printable + path;
        long backoff = 100;
        ProviderException last = null;
        for (int attempt = 1; attempt <= maxAttempts; attempt++) {
            if (attempt > 1) {
                try {
                    Thread.sleep(backoff);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new ProviderException("webhook " + what + " interrupted", e);
                }
                backoff = Math.min(backoff * 2, 2000);
            }
            HttpResponse<byte[]> response;
            CompletableFuture<HttpResponse<byte[]>> pending = http.sendAsync(request, CappedBody.handler(maxResponseBytes));
            try {
                response = pending.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                pending.cancel(true);
                last = new ProviderException(where + " " + what + ": no complete answer within the deadline of " + timeout.toMillis() + " ms", e);
                LOG.debugf("%s (attempt %d of %d)", last.getMessage(), attempt, maxAttempts);
                continue;
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                while (isWrapped(cause) && cause.getCause() != null) cause = cause.getCause();
                CappedBody.TooLarge tooLarge = tooLarge(e);
                if (tooLarge != null) {
                    throw new ProviderException(where + " " + what + ": response larger than " + tooLarge.cap
                            + " bytes (meshdns.exposure.webhook.max-response-bytes); not read further");
                }
                last = new ProviderException(where + " " + what + " failed: "
                        + (cause.getMessage() != null ? EndpointJson.printable(cause.getMessage()) : cause.getClass().getSimpleName()), cause);
                LOG.debugf("%s (attempt %d of %d)", last.getMessage(), attempt, maxAttempts);
                continue;
            } catch (InterruptedException e) {
                pending.cancel(true);
                Thread.currentThread().interrupt();
                throw new ProviderException("webhook " + what + " interrupted", e);
            }
            int status = response.statusCode();
            String text = new String(response.body(), StandardCharsets.UTF_8);
            if (status >= 500) {
                last = new ProviderException(where + " " + what + " answered " + status);
                LOG.debugf("%s (attempt %d of %d)", last.getMessage(), attempt, maxAttempts);
                continue;
            }
            if (status != expected) {
                String msg = where + " " + what + " answered " + status + " (expected " + expected + ")"
                        + (status >= 300 && status < 400 ? "; redirects are not followed" : "")
                        + (text.isBlank() ? "" : ": " + abbreviate(text));
                // a 4xx on a write refuses that data; on a read (and any 3xx) it is a setup problem
                throw status >= 400 && status < 500 && method.equals("POST") && path.equals("records")
                        ? ProviderException.rejected(msg) : new ProviderException(msg);
            }
            if (status != 204) {
                String ct = response.headers().firstValue("Content-Type").orElse("");
                if (!ct.equals(MEDIA_TYPE)) {
                    throw new ProviderException(where + " " + what + ": wrong Content-Type '" + EndpointJson.printable(ct) + "', expected " + MEDIA_TYPE);
                }
            }
            return text;
        }
        throw last;
    }

    private static boolean isWrapped(Throwable t) {
        return t instanceof ExecutionException || t instanceof java.util.concurrent.CompletionException;
    }

    private static CappedBody.TooLarge tooLarge(Throwable t) {
        for (int depth = 0; t != null && depth < 8; t = t.getCause(), depth++) {
            if (t instanceof CappedBody.TooLarge tl) return tl;
        }
        return null;
    }

    private static String abbreviate(String s) {
        return EndpointJson.printable(s.strip());
    }
}
