package io.meshdns.exposure.source;

import java.util.List;
import java.util.Optional;

/**
 * What the sources need from configuration.
 *
 * @param defaultDomain       meshdns.exposure.default-domain: where {@code meshdns.io/expose} publishes
 * @param fqdnTemplate        meshdns.exposure.fqdn-template ({@link FqdnTemplate}): the names of an object that has none of
 *                            its own (every Service, Ingress, Istio Gateway and VirtualService is then considered)
 * @param combineFqdnAnnotation meshdns.exposure.combine-fqdn-annotation: the template's names are added to the object's own
 * @param defaultTargets      meshdns.exposure.default-targets: the targets of an A/AAAA/CNAME endpoint that has none
 * @param forceDefaultTargets meshdns.exposure.force-default-targets: the default targets replace every A/AAAA/CNAME
 *                            endpoint's targets
 * @param annotationPrefix    meshdns.exposure.annotation-prefix: "" for ExternalDNS's own ({@link AnnotationPrefix})
 */
public record SourceSettings(Optional<String> defaultDomain, boolean publishClusterIp, Optional<String> fqdnTemplate,
                             List<String> defaultTargets, boolean forceDefaultTargets, String annotationPrefix, boolean combineFqdnAnnotation) {

    /** A template that does not parse fails here, naming meshdns.exposure.fqdn-template. */
    public SourceSettings {
        defaultTargets = List.copyOf(defaultTargets);
        annotationPrefix = annotationPrefix == null ? "" : annotationPrefix;
        fqdnTemplate = fqdnTemplate.filter(t -> !t.isBlank());
        fqdnTemplate.ifPresent(FqdnTemplate::parse);
    }

    /** Without combine-fqdn-annotation. */
    public SourceSettings(Optional<String> defaultDomain, boolean publishClusterIp, Optional<String> fqdnTemplate,
                          List<String> defaultTargets, boolean forceDefaultTargets, String annotationPrefix) {
        this(defaultDomain, publishClusterIp, fqdnTemplate, defaultTargets, forceDefaultTargets, annotationPrefix, false);
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
