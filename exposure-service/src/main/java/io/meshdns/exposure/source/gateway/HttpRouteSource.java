package io.meshdns.exposure.source.gateway;

import jakarta.inject.Singleton;

/** ExternalDNS's {@code --source=gateway-httproute}: HTTPRoute (v1) attached to Gateway listeners of protocol HTTP. */
@Singleton
public final class HttpRouteSource extends GatewayRouteSource {

    public HttpRouteSource(GatewayConfig config) {
        super(RouteKind.HTTP, config);
    }
}
