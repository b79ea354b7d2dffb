package io.meshdns.exposure.registry;

import io.meshdns.exposure.endpoint.Endpoint;
import java.util.List;
import java.util.Locale;

/**
 * Where ownership TXT records live, exactly as ExternalDNS's affixNameMapper computes it:
 * the prefix and suffix wrap the first label; the record type goes in as {@code <type>-} in front
 * of the first label unless the prefix or suffix holds the {@code %{record_type}} template.
 * <pre>
 *   a.example.org, A, no affix        → a-a.example.org         (legacy: a.example.org)
 *   a.example.org, CNAME, prefix txt. → txt.cname-a.example.org (legacy: txt.a.example.org)
 *   a.example.org, AAAA, suffix -%{record_type} → a-aaaa.example.org
 * </pre>
 */
public record TxtNameMapper(String prefix, String suffix) {

    static final String TYPE_TEMPLATE = "%{record_type}";
    /** The record types ExternalDNS's mapper recognises in a TXT name (its getSupportedTypes). */
    static final List<String> TYPES = List.of("a", "aaaa", "cname", "ns", "mx", "srv", "naptr", "txt", "ptr");

    public TxtNameMapper {
        prefix = prefix == null ? "" : prefix.toLowerCase(Locale.ROOT);
        suffix = suffix == null ? "" : suffix.toLowerCase(Locale.ROOT);
    }

    public static TxtNameMapper plain() {
        return new TxtNameMapper("", "");
    }

    /** The current ("new") format name, which carries the record type. */
    public String typedName(String dnsName, String recordType) {
        String type = recordType.toLowerCase(Locale.ROOT);
        String[] parts = Endpoint.normalizeName(dnsName).split("\\.", 2);
        String first = parts[0];
        if (!prefix.contains(TYPE_TEMPLATE) && !suffix.contains(TYPE_TEMPLATE)) {
            first = type + "-" + first;
        }
        return join(prefix.replace(TYPE_TEMPLATE, type) + first + suffix.replace(TYPE_TEMPLATE, type), parts);
    }

    /** The legacy (pre-0.12 ExternalDNS) name without the record type; read for migration only. */
    public String legacyName(String dnsName) {
        String[] parts = Endpoint.normalizeName(dnsName).split("\\.", 2);
        return join(prefix.replace(TYPE_TEMPLATE, "") + parts[0] + suffix.replace(TYPE_TEMPLATE, ""), parts);
    }

    /**
     * Whether {@code txtName} is the typed claim name of some RRset ({@code a-web.example.org} for
     * {@code web.example.org A}). ExternalDNS maps such a TXT name back to that RRset only, never to records
     * at the name itself, so it cannot also be a legacy claim name: text at our claim name is then not ours.
     */
    public boolean isTypedName(String txtName) {
        String name = Endpoint.normalizeName(txtName);
        boolean template = prefix.contains(TYPE_TEMPLATE) || suffix.contains(TYPE_TEMPLATE);
        for (String type : TYPES) {
            String head = template ? prefix.replace(TYPE_TEMPLATE, type) : prefix + type + "-";
            String tail = suffix.replace(TYPE_TEMPLATE, type);
            if (!name.startsWith(head)) continue;
            String rest = name.substring(head.length());
            int at = tail.isEmpty() ? 0 : rest.indexOf(tail);
            if (at < 0) continue;
            String base = rest.substring(0, at) + rest.substring(at + tail.length());
            if (base.isEmpty() || base.startsWith(".")) continue;
            if (typedName(base, type).equals(name)) return true;
        }
        return false;
    }

    private static String join(String first, String[] parts) {
        return Endpoint.normalizeName(parts.length < 2 ? first : first + "." + parts[1]);
    }
}
