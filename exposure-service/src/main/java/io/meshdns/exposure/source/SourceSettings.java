package io.meshdns.exposure.source;

import java.util.List;
import java.util.Optional;

/**
 * What the sources need from configuration.
 *
 * @param defaultDomain       meshdns.exposure.default-domain: where {@code meshdns.io/expose} publishes
 * @param fqdnTemplate        meshdns.exposure.fqdn-template: {{name}}, {{namespace}} placeholders; when set,
 *                            every Service and Ingress is considered, not only annotated ones
 * @param defaultTargets      meshdns.exposure.default-targets: the targets of an A/AAAA/CNAME endpoint that has none
 * @param forceDefaultTargets meshdns.exposure.force-default-targets: the default targets replace every A/AAAA/CNAME
 *                            endpoint's targets
 * @param annotationPrefix    meshdns.exposure.annotation-prefix: "" for ExternalDNS's own ({@link AnnotationPrefix})
 */
public record SourceSettings(Optional<String> defaultDomain, boolean publishClusterIp, Optional<String> fqdnTemplate,
                             List<String> defaultTargets, boolean forceDefaultTargets, String annotationPrefix) {

    public SourceSettings {
        defaultTargets = List.copyOf(defaultTargets);
        annotationPrefix = annotationPrefix == null ? "" : annotationPrefix;
    }

    /** With ExternalDNS's annotation prefixes. */
    public SourceSettings(Optional<String> defaultDomain, boolean publishClusterIp, Optional<String> fqdnTemplate,
                          List<String> defaultTargets, boolean forceDefaultTargets) {
        this(defaultDomain, publishClusterIp, fqdnTemplate, defaultTargets, forceDefaultTargets, "");
    }

    /** Without default targets. */
    public SourceSettings(Optional<String> defaultDomain, boolean publishClusterIp, Optional<String> fqdnTemplate) {
        this(defaultDomain, publishClusterIp, fqdnTemplate, List.of(), false, "");
    }
}
