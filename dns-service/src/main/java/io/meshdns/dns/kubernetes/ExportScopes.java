package io.meshdns.dns.kubernetes;

import io.meshdns.dns.snapshot.MeshIndex.ExportScope;

import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Istio's exportTo, resolved to the namespaces that may see a name: {@code .} is the object's own namespace,
 * {@code *} every namespace, {@code ~} none, anything else a namespace name. An object without exportTo gets the
 * mesh default ({@code meshdns.dns.default-export-to}, Istio's {@code defaultServiceExportTo}). Pure.
 */
final class ExportScopes {
    private ExportScopes() {
    }

    /** The scope of one object, or null when every namespace may see it. */
    static ExportScope of(List<String> exportTo, String namespace, List<String> defaults, boolean subtree) {
        List<String> scopes = exportTo.isEmpty() ? defaults : exportTo;
        Set<String> namespaces = new HashSet<>();
        for (String raw : scopes) {
            String s = raw.trim().toLowerCase(Locale.ROOT);
            switch (s) {
                case "*" -> {
                    return null;
                }
                case "." -> namespaces.add(namespace.toLowerCase(Locale.ROOT));
                case "~", "" -> {
                    // exported to no namespace
                }
                default -> namespaces.add(s);
            }
        }
        return new ExportScope(namespaces, subtree);
    }

    /** Several objects share a name: anyone who may see one of them may see it (null if one is visible to all). */
    static ExportScope union(Collection<ExportScope> scopes) {
        ExportScope out = null;
        for (ExportScope s : scopes) {
            if (s == null) return null;
            out = out == null ? s : out.union(s);
        }
        return out;
    }
}
