package io.meshdns.exposure.provider.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.plan.Changes;
import io.meshdns.exposure.plan.DomainFilter;
import io.meshdns.exposure.provider.TxtQuoting;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * ExternalDNS's JSON shapes on the webhook wire, written with Jackson's tree model (no reflection):
 * an endpoint is {@code {"dnsName","targets","recordType","setIdentifier","recordTTL","labels",
 * "providerSpecific":[{"name","value"}]}} with empty fields left out (Go's omitempty); changes are
 * {@code {"create","updateOld","updateNew","delete"}}; the domain filter is
 * {@code {"include","exclude","regexInclude","regexExclude"}}.
 *
 * <p>Ownership TXT targets go out quoted, exactly as ExternalDNS's TXT registry writes them; TXT
 * targets read back in quotes are unquoted, so the registry sees plain text whatever the backend keeps.
 */
final class EndpointJson {

    static final ObjectMapper MAPPER = new ObjectMapper();

    private EndpointJson() {
    }

    static ObjectNode write(Endpoint e) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("dnsName", e.dnsName());
        ArrayNode targets = n.putArray("targets");
        for (String t : e.targets()) {
            targets.add(e.recordType().equals("TXT") && TxtQuoting.isOwnershipText(t) ? TxtQuoting.quote(t) : t);
        }
        n.put("recordType", e.recordType());
        if (!e.setIdentifier().isEmpty()) n.put("setIdentifier", e.setIdentifier());
        if (e.ttl() != 0) n.put("recordTTL", e.ttl());
        if (!e.labels().isEmpty()) {
            ObjectNode labels = n.putObject("labels");
            e.labels().forEach(labels::put);
        }
        if (!e.providerSpecific().isEmpty()) {
            ArrayNode ps = n.putArray("providerSpecific");
            e.providerSpecific().forEach((k, v) -> ps.addObject().put("name", k).put("value", v));
        }
        return n;
    }

    static ArrayNode write(List<Endpoint> endpoints) {
        ArrayNode a = MAPPER.createArrayNode();
        endpoints.forEach(e -> a.add(write(e)));
        return a;
    }

    static ObjectNode write(Changes c) {
        ObjectNode n = MAPPER.createObjectNode();
        if (!c.create().isEmpty()) n.set("create", write(c.create()));
        if (!c.updateOld().isEmpty()) n.set("updateOld", write(c.updateOld()));
        if (!c.updateNew().isEmpty()) n.set("updateNew", write(c.updateNew()));
        if (!c.delete().isEmpty()) n.set("delete", write(c.delete()));
        return n;
    }

    /** Endpoints from a JSON array; an entry that does not fit the model is skipped (and named in {@code skipped}). */
    static List<Endpoint> readAll(JsonNode array, List<String> skipped) {
        var out = new ArrayList<Endpoint>();
        if (array == null || array.isNull()) return out;
        if (!array.isArray()) throw new IllegalArgumentException("expected a JSON array of endpoints, got " + array.getNodeType());
        for (JsonNode n : array) {
            try {
                out.add(read(n));
            } catch (RuntimeException e) {
                skipped.add(printable(n.path("dnsName").asText("?")) + " " + printable(n.path("recordType").asText("?"))
                        + ": " + printable(String.valueOf(e.getMessage())));
            }
        }
        return out;
    }

    static Endpoint read(JsonNode n) {
        String type = n.path("recordType").asText("");
        if (type.isEmpty()) throw new IllegalArgumentException("no recordType");
        String dnsName = n.path("dnsName").asText("");
        String invalid = invalidName(dnsName);
        if (invalid != null) throw new IllegalArgumentException("dnsName refused: " + invalid);
        var targets = new ArrayList<String>();
        for (JsonNode t : n.path("targets")) {
            targets.add(type.equalsIgnoreCase("TXT") ? TxtQuoting.unquote(t.asText()) : t.asText());
        }
        var labels = new TreeMap<String, String>();
        n.path("labels").fields().forEachRemaining(f -> labels.put(f.getKey(), f.getValue().asText()));
        var ps = new TreeMap<String, String>();
        for (JsonNode p : n.path("providerSpecific")) ps.put(p.path("name").asText(), p.path("value").asText());
        return new Endpoint(dnsName, type, targets, n.path("recordTTL").asLong(0), labels,
                n.path("setIdentifier").asText(""), ps);
    }

    /** The negotiated domain filter; empty when the provider declares none (it then serves every name). */
    static Optional<DomainFilter> domainFilter(JsonNode n) {
        List<String> include = strings(n.path("include"));
        List<String> exclude = strings(n.path("exclude"));
        String regexInclude = n.path("regexInclude").asText("");
        String regexExclude = n.path("regexExclude").asText("");
        if (include.isEmpty() && exclude.isEmpty() && regexInclude.isEmpty() && regexExclude.isEmpty()) return Optional.empty();
        return Optional.of(new DomainFilter(include, exclude,
                regexInclude.isEmpty() ? Optional.empty() : Optional.of(Pattern.compile(regexInclude)),
                regexExclude.isEmpty() ? Optional.empty() : Optional.of(Pattern.compile(regexExclude))));
    }

    /**
     * Why a name read from the provider is not a DNS name we may plan with, or null when it is one:
     * 1 to 253 octets, labels of 1 to 63, printable ASCII without spaces (wildcard {@code *} and
     * {@code _service} labels pass; a name with a newline or another control byte, an empty label or
     * an overlong one does not). Such a record is skipped, so it can never come back as a delete.
     */
    static String invalidName(String name) {
        String n = name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
        if (n.isEmpty()) return "empty";
        if (n.length() > 253) return "longer than 253 octets";
        int label = 0;
        for (int i = 0; i < n.length(); i++) {
            char c = n.charAt(i);
            if (c < 0x21 || c > 0x7e) return "character " + String.format("U+%04X", (int) c) + " at " + i;
            if (c == '.') {
                if (label == 0) return "empty label at " + i;
                label = 0;
            } else if (++label > 63) {
                return "label longer than 63 octets at " + i;
            }
        }
        return label == 0 ? "empty label at the end" : null;
    }

    /**
     * Text from the provider as it may be logged or put in a message: control and non-ASCII characters
     * escaped (a newline cannot forge a log line, an escape sequence cannot drive a terminal), at most
     * 256 characters.
     */
    static String printable(String s) {
        var b = new StringBuilder(Math.min(s.length(), 256) + 8);
        for (int i = 0; i < s.length() && b.length() < 256; i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20 || c > 0x7e) b.append(String.format("\\u%04x", (int) c));
                    else b.append(c);
                }
            }
        }
        if (b.length() >= 256) b.append("…");
        return b.toString();
    }

    private static List<String> strings(JsonNode array) {
        var out = new ArrayList<String>();
        for (JsonNode s : array) out.add(s.asText());
        return out;
    }

}
