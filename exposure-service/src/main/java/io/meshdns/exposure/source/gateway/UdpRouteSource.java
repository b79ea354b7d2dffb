package io.meshdns.exposure.source.gateway;

import jakarta.inject.Singleton;

/** ExternalDNS's {@code --source=gateway-udproute}: UDPRoute (v1alpha2) attached to Gateway listeners of protocol UDP. */
@Singleton
public final class UdpRouteSource extends GatewayRouteSource {

    public UdpRouteSource(GatewayConfig config) {
        super(RouteKind.UDP, config);
    }
}
