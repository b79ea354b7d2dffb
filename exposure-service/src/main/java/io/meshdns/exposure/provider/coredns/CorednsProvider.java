package io.meshdns.exposure.provider.coredns;

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
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * CoreDNS's etcd plugin records, keys and values exactly as ExternalDNS's coredns provider writes
 * them, through etcd's v3 JSON gateway ({@code /v3/kv/range}, {@code /v3/kv/txn}; keys and values
 * base64): one key per target, {@code <prefix><labels reversed>/<8 hex digits>} holding
 * {@code {"host":"192.0.2.1","ttl":60,"targetstrip":1}} (the random label is stripped again by
 * {@code targetstrip}); a TXT record is {@code {"text":"...","targetstrip":1}} at its own key; PTR
 * records sit at the exact reverse name, without a random label. Empty fields are left out, as Go's
 * omitempty does; a TTL of 0 is left out and CoreDNS then serves its default.
 *
 * <p>On read, a host that is an IPv4/IPv6 literal is A/AAAA, any other host CNAME (PTR under
 * .in-addr.arpa/.ip6.arpa), as ExternalDNS guesses; a key's random label is kept for updates so
 * an unchanged target keeps its key. SRV, MX and NS cannot be written in this format (ExternalDNS
 * would write a broken CNAME): they are refused, and the rest of the batch still goes out. One
 * apply is one etcd transaction per 128 operations (etcd's default --max-txn-ops).
 *
 * <p>As ExternalDNS v0.22: an endpoint's {@value #GROUP_PROPERTY} provider-specific property is written as the value's
 * {@code group} (CoreDNS answers a query only from records of one group) and read back into it; with
 * {@code strictly-owned} every value written carries {@code "owner":"<owner-id>"} and values of other owners (or none)
 * are not read at all, so they are never updated or deleted. Field order is Go's struct order: host, text, ttl,
 * targetstrip, group, owner. The group is a {@link #storedProperties() stored property}: a group changed alone is an
 * update, and the ownership claim carries the group of its record, as ExternalDNS's TXT registry copies it.
 */
public final class CorednsProvider implements Provider {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Set<String> WRITABLE = Set.of("A", "AAAA", "CNAME", "TXT", "PTR");
    static final int MAX_TXN_OPS = 128;
    /** ExternalDNS's provider-specific property for a CoreDNS group. */
    public static final String GROUP_PROPERTY = "coredns/group";

    private final List<URI> urls;
    private final String prefix;
    private final Duration timeout;
    private final DomainFilter filter;
    private final long defaultTtl;
    /** The owner id written and required in values (strictly-owned), null otherwise. */
    private final String owner;
    private final HttpClient http;
    private final SecureRandom random = new SecureRandom();
    /** (name, type, target) → etcd key, as last read: updates keep a target's key, deletes remove exactly it. */
    private volatile Map<String, String> keys = Map.of();

    public CorednsProvider(List<URI> urls, String prefix, Duration timeout, DomainFilter filter, long defaultTtl) {
        this(urls, prefix, timeout, filter, defaultTtl, null);
    }

    /** @param strictOwner the owner id of strictly-owned mode, null for ExternalDNS's default mode */
    public CorednsProvider(List<URI> urls, String prefix, Duration timeout, DomainFilter filter, long defaultTtl, String strictOwner) {
        this.owner = strictOwner;
        this.urls = List.copyOf(urls);
        this.prefix = prefix;
        this.timeout = timeout;
        this.filter = filter;
        this.defaultTtl = defaultTtl;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
    }

    @Override
    public Set<String> storedProperties() {
        return Set.of(GROUP_PROPERTY);
    }

    @Override
    public String describe() {
        return "coredns " + urls.get(0) + prefix;
    }

    private static String id(String name, String type, String target) {
        return name + "\u0000" + type + "\u0000" + target;
    }

    @Override
    public synchronized List<Endpoint> records() throws ProviderException {
        ObjectNode range = MAPPER.createObjectNode();
        range.put("key", b64(prefix));
        range.put("range_end", b64(prefixEnd(prefix)));
        JsonNode response = post("/v3/kv/range", range);
        var grouped = new LinkedHashMap<String, List<String[]>>(); // "name type" → [target, ttl, group]
        var newKeys = new HashMap<String, String>();
        for (JsonNode kv : response.path("kvs")) {
            String key = unb64(kv.path("key").asText());
            JsonNode svc;
            try {
                svc = MAPPER.readTree(unb64(kv.path("value").asText()));
            } catch (IOException e) {
                continue; // not a SkyDNS record: not ours to read
            }
            if (owner != null && !owner.equals(svc.path("owner").asText(""))) continue; // strictly owned: another writer's
            String group = svc.path("group").asText("");
            List<String> labels = new ArrayList<>(Arrays.asList(key.substring(prefix.length()).split("/")));
            Collections.reverse(labels);
            int strip = Math.max(0, Math.min(svc.path("targetstrip").asInt(0), labels.size()));
            String name = String.join(".", labels.subList(strip, labels.size()));
            if (name.isEmpty() || !filter.matches(name)) continue;
            String ttl = String.valueOf(svc.path("ttl").asLong(0));
            String host = svc.path("host").asText("");
            if (!host.isEmpty()) {
                String type = isPtrName(name) ? "PTR" : Endpoint.isIpLiteral(host) ? (host.contains(":") ? "AAAA" : "A") : "CNAME";
                grouped.computeIfAbsent(name + " " + type, k -> new ArrayList<>()).add(new String[] {host, ttl, group});
                newKeys.put(id(Endpoint.normalizeName(name), type, canonical(type, host)), key);
            }
            String text = svc.path("text").asText("");
            if (!text.isEmpty()) {
                String plain = TxtQuoting.unquote(text);
                grouped.computeIfAbsent(name + " TXT", k -> new ArrayList<>()).add(new String[] {plain, ttl, group});
                if (host.isEmpty()) newKeys.put(id(Endpoint.normalizeName(name), "TXT", plain), key);
            }
        }
        keys = Map.copyOf(newKeys);
        var out = new ArrayList<Endpoint>();
        for (var e : grouped.entrySet()) {
            int space = e.getKey().lastIndexOf(' ');
            List<String> targets = e.getValue().stream().map(v -> v[0]).toList();
            long ttl = e.getValue().stream().mapToLong(v -> Long.parseLong(v[1])).min().orElse(0);
            String group = e.getValue().stream().map(v -> v[2]).filter(g -> !g.isEmpty()).findFirst().orElse("");
            try {
                out.add(new Endpoint(e.getKey().substring(0, space), e.getKey().substring(space + 1), targets, ttl, Map.of(), "",
                        group.isEmpty() ? Map.of() : Map.of(GROUP_PROPERTY, group)));
            } catch (IllegalArgumentException ignored) {
                // a value the endpoint model cannot hold: someone else's data, never touched
            }
        }
        return out;
    }

    @Override
    public synchronized void apply(Changes changes) throws ProviderException {
        if (changes.isEmpty()) return;
        var ops = new ArrayList<ObjectNode>();
        var touched = new java.util.HashSet<String>();
        for (Endpoint e : changes.create()) write(e, null, ops);
        for (int i = 0; i < changes.updateNew().size(); i++) write(changes.updateNew().get(i), changes.updateOld().get(i), ops);
        for (Endpoint e : changes.delete()) {
            requireWritable(e);
            for (String t : e.targets()) {
                String key = keys.get(id(e.dnsName(), e.recordType(), t));
                if (key != null && touched.add(key)) ops.add(delete(key));
            }
        }
        for (int i = 0; i < ops.size(); i += MAX_TXN_OPS) {
            ObjectNode txn = MAPPER.createObjectNode();
            ArrayNode success = txn.putArray("success");
            ops.subList(i, Math.min(ops.size(), i + MAX_TXN_OPS)).forEach(success::add);
            post("/v3/kv/txn", txn);
        }
    }

    private void write(Endpoint e, Endpoint old, List<ObjectNode> ops) throws ProviderException {
        requireWritable(e);
        long ttl = e.ttl() == 0 ? defaultTtl : e.ttl();
        boolean ptr = e.recordType().equals("PTR");
        if (ptr && e.targets().size() > 1) {
            throw ProviderException.rejected("PTR " + e.dnsName() + " has " + e.targets().size()
                    + " targets; CoreDNS's etcd format holds one PTR per reverse name");
        }
        for (String t : e.targets()) {
            String key = keys.get(id(e.dnsName(), e.recordType(), t));
            if (key == null) key = ptr ? keyFor(e.dnsName()) : keyFor(String.format("%08x", random.nextInt() & 0x7fffffff) + "." + e.dnsName());
            ObjectNode svc = MAPPER.createObjectNode();
            if (e.recordType().equals("TXT")) {
                svc.put("text", TxtQuoting.isOwnershipText(t) ? TxtQuoting.quote(t) : t);
            } else {
                svc.put("host", t);
            }
            if (ttl != 0) svc.put("ttl", ttl);
            if (!ptr) svc.put("targetstrip", 1);
            String group = e.providerSpecific().getOrDefault(GROUP_PROPERTY, "");
            if (!group.isEmpty()) svc.put("group", group);
            if (owner != null) svc.put("owner", owner);
            ops.add(put(key, svc.toString()));
        }
        if (old != null) {
            for (String t : old.targets()) {
                if (e.targets().contains(t)) continue;
                String key = keys.get(id(old.dnsName(), old.recordType(), t));
                if (key != null) ops.add(delete(key));
            }
        }
    }

    private static void requireWritable(Endpoint e) throws ProviderException {
        if (!WRITABLE.contains(e.recordType())) {
            throw ProviderException.rejected(e.recordType() + " " + e.dnsName() + ": CoreDNS's etcd records hold only A, AAAA, CNAME, TXT and PTR");
        }
    }

    String keyFor(String dnsName) {
        List<String> labels = new ArrayList<>(Arrays.asList(Endpoint.normalizeName(dnsName).split("\\.")));
        Collections.reverse(labels);
        return prefix + String.join("/", labels);
    }

    private static boolean isPtrName(String name) {
        return name.endsWith(".in-addr.arpa") || name.endsWith(".ip6.arpa");
    }

    private static String canonical(String type, String host) {
        try {
            return Endpoint.normalizeTarget(type, host);
        } catch (IllegalArgumentException e) {
            return host;
        }
    }

    private static ObjectNode put(String key, String value) {
        ObjectNode op = MAPPER.createObjectNode();
        op.putObject("requestPut").put("key", b64(key)).put("value", b64(value));
        return op;
    }

    private static ObjectNode delete(String key) {
        ObjectNode op = MAPPER.createObjectNode();
        op.putObject("requestDeleteRange").put("key", b64(key));
        return op;
    }

    private static String prefixEnd(String p) {
        byte[] b = p.getBytes(StandardCharsets.UTF_8);
        b[b.length - 1]++;
        return new String(b, StandardCharsets.UTF_8);
    }

    private static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String unb64(String s) {
        return new String(Base64.getDecoder().decode(s), StandardCharsets.UTF_8);
    }

    /** POST to the first etcd URL that answers; HTTP errors from etcd are not retried elsewhere. */
    private JsonNode post(String path, ObjectNode body) throws ProviderException {
        ProviderException last = null;
        for (URI url : urls) {
            URI uri = URI.create(url.toString().replaceAll("/+$", "") + path);
            HttpResponse<String> response;
            try {
                response = http.send(HttpRequest.newBuilder(uri).timeout(timeout).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8)).build(),
                        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            } catch (IOException e) {
                last = new ProviderException("etcd " + uri + " failed: " + (e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName()), e);
                continue;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ProviderException("etcd " + uri + " interrupted", e);
            }
            if (response.statusCode() != 200) {
                throw new ProviderException("etcd " + uri + " answered " + response.statusCode() + ": " + response.body().strip());
            }
            try {
                return MAPPER.readTree(response.body());
            } catch (IOException e) {
                throw new ProviderException("etcd " + uri + ": not JSON: " + e.getMessage(), e);
            }
        }
        throw last;
    }
}
