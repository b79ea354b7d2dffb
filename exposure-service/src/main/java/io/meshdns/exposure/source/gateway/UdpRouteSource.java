package io.meshdns.exposure.source.gateway;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;

/** ExternalDNS's {@code --source=gateway-udproute}: UDPRoute (v1alpha2) attached to Gateway listeners of protocol UDP. */
@Singleton
public final class UdpRouteSource extends GatewayRouteSource {

    @Inject
    public UdpRouteSource(GatewayConfig config) {
        this(GatewayFilter.of(config));
    }

    public UdpRouteSource(GatewayFilter filter) {
        super("gateway-udproute", "UDPRoute", "v1alpha2", "udproutes", "UDP", filter);
    }
}
