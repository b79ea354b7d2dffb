package io.meshdns.exposure.source.gateway;

import jakarta.inject.Singleton;

/** ExternalDNS's {@code --source=gateway-tlsroute}: TLSRoute (v1alpha2) attached to Gateway listeners of protocol TLS. */
@Singleton
public final class TlsRouteSource extends GatewayRouteSource {

    public TlsRouteSource(GatewayConfig config) {
        super(RouteKind.TLS, config);
    }
}
