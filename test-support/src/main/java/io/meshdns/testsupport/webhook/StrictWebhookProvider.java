package io.meshdns.testsupport.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An ExternalDNS webhook provider for tests, written from the protocol (ExternalDNS's
 * {@code provider/webhook/api}), strict where ExternalDNS's own server is lenient, so a client that
 * gets the protocol slightly wrong fails here:
 * <ul>
 *   <li>{@code GET /} (negotiation), {@code GET /records}, {@code POST /records},
 *       {@code POST /adjustendpoints}; anything else is 404, a wrong method 405;</li>
 *   <li>every request must send {@code Accept: }{@value #MEDIA_TYPE} (else 406) and every body
 *       {@code Content-Type: }{@value #MEDIA_TYPE} (else 415); every JSON answer carries that Content-Type;</li>
 *   <li>{@code POST /records} must be consistent with what is stored: a create of an existing RRset,
 *       an updateOld that differs from the stored RRset, or a delete of a missing one is 409;
 *       a name outside the domain filter 400; an ownership TXT ({@code heritage=...}) not in quotes
 *       400 (ExternalDNS always quotes them); success is 204 and applies all or nothing;</li>
 *   <li>{@link #failNext(int, int)} answers the next requests with a status (a provider that fails once with 500).</li>
 * </ul>
 * RRsets are stored as ExternalDNS's endpoint JSON, keyed by dnsName, recordType and setIdentifier.
 */
public final class StrictWebhookProvider implements AutoCloseable {

    public static final String MEDIA_TYPE = "application/external.dns.webhook+json;version=1";
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final HttpServer server;
    private final List<String> domains;
    private final Map<String, ObjectNode> records = Collections.synchronizedMap(new TreeMap<>());
    private final AtomicInteger failures = new AtomicInteger();
    private volatile int failureStatus = 500;
    /** Every request as "METHOD /path status", in order. */
    private final ConcurrentLinkedQueue<String> requests = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<String> appliedChanges = new ConcurrentLinkedQueue<>();

    /** @param domains the domain filter announced at negotiation ({@code include}); also enforced on writes */
    public StrictWebhookProvider(List<String> domains) throws IOException {
        this.domains = List.copyOf(domains);
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.setExecutor(Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "strict-webhook");
            t.setDaemon(true);
            return t;
        }));
        server.start();
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** The next {@code count} requests are answered with {@code status} and no effect. */
    public void failNext(int count, int status) {
        failureStatus = status;
        failures.set(count);
    }

    public List<String> requests() {
        return new ArrayList<>(requests);
    }

    /** The bodies of every successful {@code POST /records}. */
    public List<String> appliedChanges() {
        return new ArrayList<>(appliedChanges);
    }

    /** Stores an RRset as if it had been there before (a zone ExternalDNS wrote); targets as ExternalDNS keeps them. */
    public void seed(String dnsName, String type, long ttl, String... targets) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("dnsName", dnsName);
        ArrayNode t = n.putArray("targets");
        for (String s : targets) t.add(s);
        n.put("recordType", type);
        if (ttl != 0) n.put("recordTTL", ttl);
        records.put(key(n), n);
    }

    /** The stored targets of an RRset (empty when there is none). */
    public List<String> targets(String dnsName, String type) {
        ObjectNode n = records.get(dnsName + "|" + type + "|");
        var out = new ArrayList<String>();
        if (n != null) n.path("targets").forEach(t -> out.add(t.asText()));
        Collections.sort(out);
        return out;
    }

    public long ttl(String dnsName, String type) {
        ObjectNode n = records.get(dnsName + "|" + type + "|");
        return n == null ? -1 : n.path("recordTTL").asLong(0);
    }

    /** Every stored RRset as "name type [targets] ttl" lines, sorted. */
    public List<String> dump() {
        var out = new ArrayList<String>();
        synchronized (records) {
            records.values().forEach(n -> out.add(n.path("dnsName").asText() + " " + n.path("recordType").asText() + " "
                    + n.path("targets") + " " + n.path("recordTTL").asLong(0)));
        }
        return out;
    }

    private static String key(JsonNode n) {
        return n.path("dnsName").asText() + "|" + n.path("recordType").asText() + "|" + n.path("setIdentifier").asText("");
    }

    private void handle(HttpExchange ex) throws IOException {
        String method = ex.getRequestMethod();
        String path = ex.getRequestURI().getPath();
        int status;
        String body = null;
        try {
            byte[] in = ex.getRequestBody().readAllBytes();
            if (failures.getAndUpdate(f -> Math.max(0, f - 1)) > 0) {
                status = failureStatus;
            } else if (!MEDIA_TYPE.equals(ex.getRequestHeaders().getFirst("Accept"))) {
                status = 406;
            } else if (in.length > 0 && !MEDIA_TYPE.equals(ex.getRequestHeaders().getFirst("Content-Type"))) {
                status = 415;
            } else {
                String[] result = route(method, path, new String(in, StandardCharsets.UTF_8));
                status = Integer.parseInt(result[0]);
                body = result[1];
            }
        } catch (RuntimeException e) {
            status = 400;
            body = null;
        }
        requests.add(method + " " + path + " " + status);
        if (body != null) {
            byte[] out = body.getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", MEDIA_TYPE);
            ex.sendResponseHeaders(status, out.length);
            ex.getResponseBody().write(out);
        } else {
            ex.sendResponseHeaders(status, -1);
        }
        ex.close();
    }

    private String[] route(String method, String path, String body) throws IOException {
        switch (path) {
            case "/" -> {
                if (!method.equals("GET")) return new String[] {"405", null};
                ObjectNode filter = MAPPER.createObjectNode();
                ArrayNode include = filter.putArray("include");
                domains.forEach(include::add);
                return new String[] {"200", filter.toString()};
            }
            case "/records" -> {
                if (method.equals("GET")) {
                    ArrayNode all = MAPPER.createArrayNode();
                    synchronized (records) {
                        records.values().forEach(all::add);
                    }
                    return new String[] {"200", all.toString()};
                }
                if (!method.equals("POST")) return new String[] {"405", null};
                return new String[] {String.valueOf(applyChanges(MAPPER.readTree(body))), null};
            }
            case "/adjustendpoints" -> {
                if (!method.equals("POST")) return new String[] {"405", null};
                JsonNode endpoints = MAPPER.readTree(body);
                if (!endpoints.isArray()) return new String[] {"400", null};
                return new String[] {"200", endpoints.toString()};
            }
            default -> {
                return new String[] {"404", null};
            }
        }
    }

    private int applyChanges(JsonNode changes) {
        synchronized (records) {
            var next = new TreeMap<>(records);
            JsonNode oldList = changes.path("updateOld");
            JsonNode newList = changes.path("updateNew");
            if (oldList.size() != newList.size()) return 400;
            for (JsonNode e : changes.path("delete")) {
                if (!valid(e)) return 400;
                if (next.remove(key(e)) == null) return 409;
            }
            for (int i = 0; i < oldList.size(); i++) {
                JsonNode old = oldList.get(i);
                JsonNode now = newList.get(i);
                if (!valid(old) || !valid(now) || !key(old).equals(key(now))) return 400;
                ObjectNode stored = next.get(key(old));
                if (stored == null || !sortedTargets(stored).equals(sortedTargets(old))) return 409;
                next.put(key(now), (ObjectNode) now);
            }
            for (JsonNode e : changes.path("create")) {
                if (!valid(e) || e.path("targets").isEmpty()) return 400;
                if (next.containsKey(key(e))) return 409;
                next.put(key(e), (ObjectNode) e);
            }
            records.clear();
            records.putAll(next);
            appliedChanges.add(changes.toString());
            return 204;
        }
    }

    private boolean valid(JsonNode e) {
        String name = e.path("dnsName").asText("");
        if (name.isEmpty() || e.path("recordType").asText("").isEmpty()) return false;
        if (!domains.isEmpty() && domains.stream().noneMatch(d -> name.equals(d) || name.endsWith("." + d))) return false;
        if (e.path("recordType").asText().equals("TXT")) {
            for (JsonNode t : e.path("targets")) {
                if (t.asText().startsWith("heritage=")) return false;
            }
        }
        return true;
    }

    private static List<String> sortedTargets(JsonNode n) {
        var out = new ArrayList<String>();
        n.path("targets").forEach(t -> out.add(t.asText()));
        Collections.sort(out);
        return out;
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
