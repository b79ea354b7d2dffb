package io.meshdns.exposure.registry;

import io.meshdns.exposure.endpoint.Endpoint;
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

    private static String join(String first, String[] parts) {
        return Endpoint.normalizeName(parts.length < 2 ? first : first + "." + parts[1]);
    }
}
