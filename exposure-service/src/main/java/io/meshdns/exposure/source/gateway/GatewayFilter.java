package io.meshdns.exposure.source.gateway;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.meshdns.exposure.source.LabelSelector;
import java.util.Optional;

/** Which Gateways the route sources follow ({@link GatewayConfig}, checked): name, namespace, label selector. */
public record GatewayFilter(Optional<String> name, Optional<String> namespace, LabelSelector labels) {

    public static final GatewayFilter ALL = new GatewayFilter(Optional.empty(), Optional.empty(), LabelSelector.parse("", ""));

    /** Fails naming the key on a selector it cannot read. */
    public static GatewayFilter of(GatewayConfig c) {
        return new GatewayFilter(c.name().filter(s -> !s.isBlank()), c.namespace().filter(s -> !s.isBlank()),
                LabelSelector.parse("meshdns.exposure.gateway.label-filter", c.labelFilter().orElse("")));
    }

    public static GatewayFilter of(Optional<String> name, Optional<String> namespace, String labelFilter) {
        return new GatewayFilter(name, namespace, LabelSelector.parse("meshdns.exposure.gateway.label-filter", labelFilter));
    }

    boolean admits(HasMetadata gateway) {
        var m = gateway.getMetadata();
        return name.map(n -> n.equals(m.getName())).orElse(true) && namespace.map(n -> n.equals(m.getNamespace())).orElse(true)
                && labels.matches(m.getLabels());
    }
}
