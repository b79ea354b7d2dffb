package io.meshdns.exposure.provider.pdns;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.plan.Changes;
import io.meshdns.exposure.plan.DomainFilter;
import io.meshdns.exposure.provider.Provider;
import io.meshdns.exposure.provider.ProviderException;
import io.meshdns.exposure.provider.TxtQuoting;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * PowerDNS Authoritative through its HTTP API, the way ExternalDNS's pdns provider uses it:
 * {@code GET /api/v1/servers/<id>/zones} (zones inside the domain filter), {@code GET .../zones/<zone>}
 * for the RRsets, and one {@code PATCH .../zones/<zone>} per zone with {@code changetype REPLACE}
 * for created and updated RRsets and {@code DELETE} for removed ones (PowerDNS applies a PATCH
 * atomically). Targets of CNAME, MX, NS, PTR and SRV get their trailing dot; TXT content is quoted
 * as PowerDNS requires; a CNAME at a zone apex becomes ALIAS (ExternalDNS does the same) and ALIAS
 * reads back as CNAME. A record without a TTL gets 300 s, as ExternalDNS's. HTTP 422/400 (PowerDNS
 * refusing the data) is a rejection, so the caller can split the batch.
 */
public final class PdnsProvider implements Provider {

    private static final Logger LOG = Logger.getLogger(PdnsProvider.class);
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Set<String> TRAILING_DOT = Set.of("CNAME", "MX", "NS", "PTR", "SRV");

    private final URI api;
    private final String apiKey;
    private final Duration timeout;
    private final DomainFilter filter;
    private final long defaultTtl;
    private final HttpClient http;

    public PdnsProvider(URI server, String apiKey, String serverId, Duration timeout, DomainFilter filter, long defaultTtl) {
        String base = server.toString().replaceAll("/+$", "");
        this.api = URI.create(base + "/api/v1/servers/" + URLEncoder.encode(serverId, StandardCharsets.UTF_8) + "/");
        this.apiKey = apiKey;
        this.timeout = timeout;
        this.filter = filter;
        this.defaultTtl = defaultTtl;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
    }

    @Override
    public String describe() {
        return "pdns " + api;
    }

    /** Zone names (with trailing dot) whose apex passes the domain filter, longest first. */
    List<String> zones() throws ProviderException {
        JsonNode list = json(send("GET", "zones", null, 200), "GET zones");
        var out = new ArrayList<String>();
        for (JsonNode z : list) {
            String name = z.path("name").asText();
            if (filter.matches(name) || filterIsBelow(name)) out.add(name);
        }
        out.sort(Comparator.comparingInt(String::length).reversed());
        return out;
    }

    /** A zone is managed also when the filter names a domain inside it (filter "web.example.org", zone "example.org."). */
    private boolean filterIsBelow(String zone) {
        String z = Endpoint.normalizeName(zone);
        return filter.include().stream().anyMatch(d -> d.replaceFirst("^\\.", "").endsWith("." + z));
    }

    @Override
    public List<Endpoint> records() throws ProviderException {
        var out = new ArrayList<Endpoint>();
        for (String zone : zones()) {
            JsonNode z = json(send("GET", "zones/" + enc(zone), null, 200), "GET zone " + zone);
            for (JsonNode rr : z.path("rrsets")) {
                String type = rr.path("type").asText();
                if (type.equals("ALIAS")) type = "CNAME";
                var targets = new ArrayList<String>();
                for (JsonNode r : rr.path("records")) {
                    if (r.path("disabled").asBoolean(false)) continue;
                    String content = r.path("content").asText();
                    targets.add(type.equals("TXT") ? TxtQuoting.unquote(content) : content);
                }
                if (targets.isEmpty()) continue;
                try {
                    out.add(new Endpoint(rr.path("name").asText(), type, targets, rr.path("ttl").asLong(0), Map.of(), ""));
                } catch (IllegalArgumentException e) {
                    LOG.debugf("skipping PowerDNS RRset %s %s that does not fit the endpoint model: %s", rr.path("name").asText(), type, e.getMessage());
                }
            }
        }
        return out;
    }

    @Override
    public void apply(Changes changes) throws ProviderException {
        if (changes.isEmpty()) return;
        List<String> zones = zones();
        var byZone = new LinkedHashMap<String, ArrayNode>();
        var replace = new ArrayList<Endpoint>(changes.create());
        replace.addAll(changes.updateNew());
        for (Endpoint e : sorted(replace)) rrset(byZone, zones, e, "REPLACE");
        for (Endpoint e : sorted(changes.delete())) rrset(byZone, zones, e, "DELETE");
        for (var entry : byZone.entrySet()) {
            ObjectNode body = MAPPER.createObjectNode();
            body.set("rrsets", entry.getValue());
            send("PATCH", "zones/" + enc(entry.getKey()), body.toString(), 204);
        }
    }

    private void rrset(Map<String, ArrayNode> byZone, List<String> zones, Endpoint e, String changetype) throws ProviderException {
        String name = e.dnsName() + ".";
        Optional<String> zone = zones.stream().filter(z -> name.equals(z) || name.endsWith("." + z)).findFirst();
        if (zone.isEmpty()) throw ProviderException.rejected("no PowerDNS zone (inside the domain filter) contains " + e.dnsName());
        String type = e.recordType();
        if (type.equals("CNAME") && name.equals(zone.get())) type = "ALIAS";
        ObjectNode rr = byZone.computeIfAbsent(zone.get(), z -> MAPPER.createArrayNode()).addObject();
        rr.put("name", name).put("type", type).put("changetype", changetype);
        if (changetype.equals("REPLACE")) {
            rr.put("ttl", e.ttl() == 0 ? defaultTtl : e.ttl());
            ArrayNode records = rr.putArray("records");
            for (String t : e.targets()) {
                String content = e.recordType().equals("TXT") ? TxtQuoting.quote(t)
                        : TRAILING_DOT.contains(e.recordType()) && !t.endsWith(".") ? t + "." : t;
                records.addObject().put("content", content).put("disabled", false);
            }
        }
    }

    private static List<Endpoint> sorted(List<Endpoint> list) {
        var copy = new ArrayList<>(list);
        copy.sort(Comparator.comparing(Endpoint::key));
        return copy;
    }

    private static String enc(String zone) {
        return URLEncoder.encode(zone, StandardCharsets.UTF_8);
    }

    private JsonNode json(String body, String what) throws ProviderException {
        try {
            return MAPPER.readTree(body);
        } catch (IOException e) {
            throw new ProviderException(describe() + " " + what + ": not JSON: " + e.getMessage(), e);
        }
    }

    private String send(String method, String path, String body, int expected) throws ProviderException {
        URI uri = api.resolve(path);
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(timeout).header("X-API-Key", apiKey).header("Accept", "application/json");
        if (body != null) {
            b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        } else {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        }
        HttpResponse<String> response;
        try {
            response = http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new ProviderException("PowerDNS " + method + " " + uri + " failed: " + (e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName()), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProviderException("PowerDNS " + method + " " + uri + " interrupted", e);
        }
        int status = response.statusCode();
        if (status == expected || (expected == 204 && status == 200)) return response.body();
        String msg = "PowerDNS " + method + " " + uri + " answered " + status + ": " + response.body().strip();
        if (status == 422 || status == 400) throw ProviderException.rejected(msg);
        throw new ProviderException(msg);
    }
}
