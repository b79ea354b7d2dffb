package io.meshdns.exposure.provider.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.plan.Changes;
import io.meshdns.exposure.plan.DomainFilter;
import io.meshdns.exposure.provider.Provider;
import io.meshdns.exposure.provider.ProviderException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
 *       rejection of the data, so the batch is split and the rest still published.</li>
 * </ul>
 */
public final class WebhookProvider implements Provider {

    private static final Logger LOG = Logger.getLogger(WebhookProvider.class);
    public static final String MEDIA_TYPE = "application/external.dns.webhook+json;version=1";

    private final URI base;
    private final Duration timeout;
    private final int maxAttempts;
    private final HttpClient http;
    private volatile boolean negotiated;
    private volatile Optional<DomainFilter> domainFilter = Optional.empty();

    public WebhookProvider(URI base, Duration timeout, int maxAttempts) {
        String s = base.toString();
        this.base = URI.create(s.endsWith("/") ? s : s + "/");
        this.timeout = timeout;
        this.maxAttempts = maxAttempts;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
    }

    @Override
    public String describe() {
        return "webhook " + base;
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
            throw new ProviderException("webhook " + base + ": the negotiated domain filter is invalid: " + e.getMessage(), e);
        }
        negotiated = true;
        LOG.infof("webhook %s negotiated; domain filter %s", base, domainFilter.map(Object::toString).orElse("(none: every name)"));
    }

    @Override
    public List<Endpoint> records() throws ProviderException {
        negotiate();
        var skipped = new ArrayList<String>();
        List<Endpoint> out;
        try {
            out = EndpointJson.readAll(json(send("GET", "records", null, 200)), skipped);
        } catch (IllegalArgumentException e) {
            throw new ProviderException("webhook " + base + " GET /records: " + e.getMessage(), e);
        }
        skipped.forEach(s -> LOG.debugf("webhook %s: skipping record that does not fit the endpoint model: %s", base, s));
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
            throw new ProviderException("webhook " + base + " POST /adjustendpoints: " + e.getMessage(), e);
        }
        skipped.forEach(s -> LOG.warnf("webhook %s: adjusted endpoint dropped: %s", base, s));
        return out;
    }

    private JsonNode json(String body) throws ProviderException {
        try {
            return EndpointJson.MAPPER.readTree(body);
        } catch (IOException e) {
            throw new ProviderException("webhook " + base + ": response is not JSON: " + e.getMessage(), e);
        }
    }

    /** One request with retries on 5xx and connection failures; returns the body of the expected status. */
    private String send(String method, String path, String body, int expected) throws ProviderException {
        URI uri = base.resolve(path);
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(timeout).header("Accept", MEDIA_TYPE);
        if (body != null) {
            b.header("Content-Type", MEDIA_TYPE).method(method, HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        } else {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        }
        HttpRequest request = b.build();
        String what = method + " /" + path;
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
            HttpResponse<String> response;
            try {
                response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            } catch (IOException e) {
                last = new ProviderException("webhook " + uri + " " + what + " failed: " + (e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName()), e);
                LOG.debugf("%s (attempt %d of %d)", last.getMessage(), attempt, maxAttempts);
                continue;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ProviderException("webhook " + what + " interrupted", e);
            }
            int status = response.statusCode();
            if (status >= 500) {
                last = new ProviderException("webhook " + uri + " " + what + " answered " + status);
                LOG.debugf("%s (attempt %d of %d)", last.getMessage(), attempt, maxAttempts);
                continue;
            }
            if (status != expected) {
                String msg = "webhook " + uri + " " + what + " answered " + status + " (expected " + expected + ")"
                        + (response.body().isBlank() ? "" : ": " + abbreviate(response.body()));
                // a 4xx on a write refuses that data; on a read it is a setup problem
                throw status >= 400 && status < 500 && method.equals("POST") && path.equals("records")
                        ? ProviderException.rejected(msg) : new ProviderException(msg);
            }
            if (status != 204) {
                String ct = response.headers().firstValue("Content-Type").orElse("");
                if (!ct.equals(MEDIA_TYPE)) {
                    throw new ProviderException("webhook " + uri + " " + what + ": wrong Content-Type '" + ct + "', expected " + MEDIA_TYPE);
                }
            }
            return response.body();
        }
        throw last;
    }

    private static String abbreviate(String s) {
        String t = s.strip();
        return t.length() > 300 ? t.substring(0, 300) + "…" : t;
    }
}
