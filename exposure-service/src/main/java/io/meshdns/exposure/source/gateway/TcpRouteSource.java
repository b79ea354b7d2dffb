package io.meshdns.exposure.source.gateway;

import jakarta.inject.Singleton;

/** ExternalDNS's {@code --source=gateway-tcproute}: TCPRoute (v1alpha2) attached to Gateway listeners of protocol TCP. */
@Singleton
public final class TcpRouteSource extends GatewayRouteSource {

    public TcpRouteSource(GatewayConfig config) {
        super(RouteKind.TCP, config);
    }
}
