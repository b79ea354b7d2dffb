package io.meshdns.exposure.source.gateway;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.util.Optional;

/**
 * ExternalDNS's --gateway-name, --gateway-namespace, --gateway-label-filter, --gateway-listener-sets: which Gateways the
 * route sources follow, and whether a route may reach them through a ListenerSet.
 */
@ConfigMapping(prefix = "meshdns.exposure.gateway")
public interface GatewayConfig {

    /** Only routes attached to a Gateway of this name. */
    Optional<String> name();

    /** Only Gateways in this namespace. */
    Optional<String> namespace();

    /** A label selector (k=v, k!=v, k, !k; comma-separated) the Gateways must match. */
    Optional<String> labelFilter();

    /**
     * ExternalDNS --gateway-listener-sets: a route whose parentRef is a ListenerSet (gateway.networking.k8s.io/v1, or the
     * experimental XListenerSet of gateway.networking.x-k8s.io) attaches to its listeners and publishes at its parent
     * Gateway's addresses. Off by default, as in ExternalDNS.
     */
    @WithDefault("false")
    boolean listenerSets();
}
