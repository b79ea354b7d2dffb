package io.meshdns.exposure.source.gateway;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;

/** ExternalDNS's {@code --source=gateway-tlsroute}: TLSRoute (v1alpha2) attached to Gateway listeners of protocol TLS. */
@Singleton
public final class TlsRouteSource extends GatewayRouteSource {

    @Inject
    public TlsRouteSource(GatewayConfig config) {
        this(GatewayFilter.of(config));
    }

    public TlsRouteSource(GatewayFilter filter) {
        super("gateway-tlsroute", "TLSRoute", "v1alpha2", "tlsroutes", "TLS", filter);
    }
}
