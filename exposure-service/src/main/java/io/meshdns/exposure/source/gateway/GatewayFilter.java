package io.meshdns.exposure.source.gateway;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.meshdns.exposure.source.LabelSelector;
import java.util.Optional;

/**
 * Which Gateways the route sources follow ({@link GatewayConfig}, checked): name, namespace, label selector; and whether
 * ListenerSet parents are followed. The three filters apply to Gateways, never to ListenerSets (a ListenerSet counts when
 * its parent Gateway does), as in ExternalDNS.
 */
public record GatewayFilter(Optional<String> name, Optional<String> namespace, LabelSelector labels, boolean listenerSets) {

    public static final GatewayFilter ALL = new GatewayFilter(Optional.empty(), Optional.empty(), LabelSelector.parse("", ""), false);

    /** Fails naming the key on a selector it cannot read. */
    public static GatewayFilter of(GatewayConfig c) {
        return new GatewayFilter(c.name().filter(s -> !s.isBlank()), c.namespace().filter(s -> !s.isBlank()),
                LabelSelector.parse("meshdns.exposure.gateway.label-filter", c.labelFilter().orElse("")), c.listenerSets());
    }

    public static GatewayFilter of(Optional<String> name, Optional<String> namespace, String labelFilter) {
        return new GatewayFilter(name, namespace, LabelSelector.parse("meshdns.exposure.gateway.label-filter", labelFilter), false);
    }

    /** The same filter, following ListenerSet parents or not. */
    public GatewayFilter withListenerSets(boolean on) {
        return new GatewayFilter(name, namespace, labels, on);
    }

    boolean admits(HasMetadata gateway) {
        var m = gateway.getMetadata();
        return name.map(n -> n.equals(m.getName())).orElse(true) && namespace.map(n -> n.equals(m.getNamespace())).orElse(true)
                && labels.matches(m.getLabels());
    }
}
