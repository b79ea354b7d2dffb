package io.meshdns.exposure.source;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The annotations we read. ExternalDNS's under both prefixes ({@code external-dns.kubernetes.io/}
 * and the older {@code external-dns.alpha.kubernetes.io/}), decided per annotation: when an object
 * carries both forms of one annotation the {@code external-dns.kubernetes.io/} value is used and
 * the alpha one ignored (ExternalDNS from v0.22 reads only the new prefix, so with both present the
 * two agree; an object with only the alpha form is still published by meshdns, not by ExternalDNS
 * v0.22). meshdns's own: {@code meshdns.io/expose}, {@code meshdns.io/srv-port}, {@code meshdns.io/shared}.
 */
public final class Annotations {

    public static final String PREFIX = "external-dns.kubernetes.io/";
    public static final String ALPHA_PREFIX = "external-dns.alpha.kubernetes.io/";
    public static final String HOSTNAME = "hostname";
    public static final String TTL = "ttl";
    public static final String TARGET = "target";
    public static final String INTERNAL_HOSTNAME = "internal-hostname";
    public static final String CONTROLLER = "controller";
    /** The only controller value ExternalDNS (and we) act on; any other value means "not for us". */
    public static final String CONTROLLER_VALUE = "dns-controller";
    public static final String ACCESS = "access";
    public static final String ENDPOINTS_TYPE = "endpoints-type";
    public static final String INGRESS_HOSTNAME_SOURCE = "ingress-hostname-source";
    public static final String RECORD_TYPE = "record-type";
    public static final String EXPOSE = "meshdns.io/expose";
    public static final String SRV_PORT = "meshdns.io/srv-port";
    /** Several owners publish into this object's RRsets: claims are written as shares (see the registry). */
    public static final String SHARED = "meshdns.io/shared";
    /** ExternalDNS's prefix of CoreDNS annotations ({@code coredns-group}), see {@link #corednsProperties}. */
    public static final String COREDNS = "coredns-";

    private Annotations() {
    }

    /**
     * ExternalDNS's CoreDNS annotations: {@code …/coredns-<attr>} becomes the provider-specific property
     * {@code coredns/<attr>} (the provider reads {@code coredns/group}); per attribute, the standard prefix wins.
     */
    public static Map<String, String> corednsProperties(Map<String, String> annotations) {
        if (annotations == null || annotations.isEmpty()) return Map.of();
        var out = new java.util.TreeMap<String, String>();
        for (String prefix : List.of(ALPHA_PREFIX, PREFIX)) {
            annotations.forEach((k, v) -> {
                if (k.startsWith(prefix + COREDNS) && k.length() > (prefix + COREDNS).length()) {
                    out.put("coredns/" + k.substring((prefix + COREDNS).length()), v.trim());
                }
            });
        }
        return out;
    }

    public static Optional<String> get(Map<String, String> annotations, String key) {
        if (annotations == null) return Optional.empty();
        String v = annotations.get(PREFIX + key);
        if (v == null) v = annotations.get(ALPHA_PREFIX + key);
        return Optional.ofNullable(v);
    }

    /** Comma (and blank) separated list, trimmed, empties dropped. */
    public static List<String> list(Map<String, String> annotations, String key) {
        var out = new ArrayList<String>();
        get(annotations, key).ifPresent(v -> {
            for (String s : v.split("[,\\s]+")) {
                if (!s.isBlank()) out.add(s.trim());
            }
        });
        return out;
    }

    /** ExternalDNS's controller filter: an object whose controller annotation names another controller is skipped. */
    public static boolean forOtherController(Map<String, String> annotations) {
        return get(annotations, CONTROLLER).map(v -> !v.trim().equals(CONTROLLER_VALUE)).orElse(false);
    }

    public static boolean expose(Map<String, String> annotations) {
        return annotations != null && "true".equalsIgnoreCase(String.valueOf(annotations.get(EXPOSE)).trim());
    }

    /**
     * TTL in seconds as ExternalDNS accepts it: an integer, or a Go-style duration ("90s", "5m", "1h").
     *
     * @throws IllegalArgumentException for anything else or a value outside 1..2147483647 s
     */
    public static long parseTtl(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        long seconds;
        try {
            if (v.matches("\\d+")) {
                seconds = Long.parseLong(v);
            } else if (v.matches("(\\d+h)?(\\d+m)?(\\d+s)?") && !v.isEmpty()) {
                seconds = Duration.parse("PT" + v.toUpperCase(Locale.ROOT)).getSeconds();
            } else {
                throw new IllegalArgumentException("ttl '" + value + "' is neither seconds nor a duration like 5m");
            }
        } catch (NumberFormatException | DateTimeParseException e) {
            throw new IllegalArgumentException("ttl '" + value + "' is not a number", e);
        }
        if (seconds < 1 || seconds > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("ttl '" + value + "' out of range 1.." + Integer.MAX_VALUE);
        }
        return seconds;
    }
}
