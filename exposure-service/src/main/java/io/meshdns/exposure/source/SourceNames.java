package io.meshdns.exposure.source;

import java.util.Locale;

/** Resource keys as ExternalDNS writes them in the TXT registry: service/ns/name, ingress/ns/name, crd/ns/name. */
public final class SourceNames {
    private SourceNames() {
    }

    public static String resourceKey(String kind, String namespace, String name) {
        String k = switch (kind) {
            case "DNSEndpoint" -> "crd";
            default -> kind.toLowerCase(Locale.ROOT);
        };
        return k + "/" + namespace + "/" + name;
    }
}
