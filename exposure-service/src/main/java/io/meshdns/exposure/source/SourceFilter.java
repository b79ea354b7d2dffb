package io.meshdns.exposure.source;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Optional;

/**
 * Which objects the sources translate ({@link SourceFilterConfig}, checked at start): applied to each source's own
 * objects (Services, Ingresses, DNSEndpoints, routes), not to the kinds it reads as context (Nodes, Gateways), as
 * ExternalDNS applies --namespace, --label-filter and --annotation-filter.
 */
public record SourceFilter(Optional<String> namespace, LabelSelector labels, LabelSelector annotations) {

    public static final SourceFilter ALL = new SourceFilter(Optional.empty(), LabelSelector.parse("", ""), LabelSelector.parse("", ""));

    /** Fails naming the key on a selector it cannot read. */
    public static SourceFilter of(SourceFilterConfig c) {
        return new SourceFilter(c.namespace().map(String::trim).filter(s -> !s.isEmpty()),
                LabelSelector.parse("meshdns.exposure.label-filter", c.labelFilter().orElse("")),
                LabelSelector.parse("meshdns.exposure.annotation-filter", c.annotationFilter().orElse("")));
    }

    public boolean admits(HasMetadata o) {
        var m = o.getMetadata();
        return namespace.map(n -> n.equals(m.getNamespace())).orElse(true) && labels.matches(m.getLabels())
                && annotations.matches(m.getAnnotations());
    }
}
