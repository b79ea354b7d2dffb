package io.meshdns.discovery.translate;

import io.fabric8.kubernetes.api.model.HasMetadata;

import java.util.regex.Pattern;

/**
 * The API server's own rules for object names, applied to every object: a manifest file has no API server to
 * refuse {@code Web_1} or {@code a.b} as a Service name, and such a name would otherwise become a DNS label the
 * Kubernetes DNS spec never produces (a dot in a Service name adds a label and lands beside other names).
 * Services and ServiceImports are DNS-1035 labels (a letter first), namespaces DNS-1123 labels, every other
 * kind a DNS-1123 subdomain, as the API server validates them.
 */
public final class ObjectNames {
    private static final Pattern DNS_1123_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
    private static final Pattern DNS_1035_LABEL = Pattern.compile("[a-z]([-a-z0-9]{0,61}[a-z0-9])?");
    private static final Pattern DNS_1123_SUBDOMAIN_LABEL = DNS_1123_LABEL;
    private static final int MAX_SUBDOMAIN = 253;

    /** Which rule a kind's names follow. */
    public enum Rule {
        DNS_1035_LABEL("a DNS-1035 label (lower-case letters, digits and '-', a letter first, at most 63)"),
        DNS_1123_LABEL("a DNS-1123 label (lower-case letters, digits and '-', at most 63)"),
        DNS_1123_SUBDOMAIN("a DNS-1123 subdomain (dot-separated DNS-1123 labels, at most 253)");

        private final String description;

        Rule(String description) {
            this.description = description;
        }
    }

    private ObjectNames() {
    }

    /**
     * Why {@code o}'s name or namespace cannot be served, or null when both are valid. A missing namespace is
     * valid (manifests often omit it; it means {@code default}); a cluster-scoped kind has none to check.
     */
    public static String problem(HasMetadata o, Rule nameRule, boolean namespaced) {
        if (o.getMetadata() == null || o.getMetadata().getName() == null || o.getMetadata().getName().isEmpty()) {
            return "metadata.name is missing";
        }
        String name = o.getMetadata().getName();
        if (!matches(name, nameRule)) {
            return "metadata.name '" + printable(name) + "' is not " + nameRule.description;
        }
        String ns = o.getMetadata().getNamespace();
        if (namespaced && ns != null && !ns.isEmpty() && !matches(ns, Rule.DNS_1123_LABEL)) {
            return "metadata.namespace '" + printable(ns) + "' is not " + Rule.DNS_1123_LABEL.description;
        }
        return null;
    }

    /** The object's name, null when missing or empty. */
    public static String name(HasMetadata o) {
        if (o.getMetadata() == null) return null;
        String n = o.getMetadata().getName();
        return n == null || n.isEmpty() ? null : n;
    }

    /** The object's namespace; {@code default} when it has none. */
    public static String namespaceOf(HasMetadata o) {
        String ns = o.getMetadata() == null ? null : o.getMetadata().getNamespace();
        // Manifests often omit the namespace; kubectl would apply them to "default".
        return ns == null || ns.isEmpty() ? "default" : ns;
    }

    static boolean matches(String s, Rule rule) {
        return switch (rule) {
            case DNS_1035_LABEL -> DNS_1035_LABEL.matcher(s).matches();
            case DNS_1123_LABEL -> DNS_1123_LABEL.matcher(s).matches();
            case DNS_1123_SUBDOMAIN -> isSubdomain(s);
        };
    }

    private static boolean isSubdomain(String s) {
        if (s.length() > MAX_SUBDOMAIN) {
            return false;
        }
        for (String label : s.split("\\.", -1)) {
            if (!DNS_1123_SUBDOMAIN_LABEL.matcher(label).matches()) {
                return false;
            }
        }
        return true;
    }

    /** A name as it may be logged and put in an Event: control bytes escaped, at most 100 characters. */
    static String printable(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length() && b.length() < 100; i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7f || c == '\'' || c == '\\') {
                b.append(String.format("\\x%02x", (int) c & 0xff));
            } else {
                b.append(c);
            }
        }
        return s.length() > 100 || b.length() > 100 ? b.substring(0, Math.min(b.length(), 100)) + "…" : b.toString();
    }
}
