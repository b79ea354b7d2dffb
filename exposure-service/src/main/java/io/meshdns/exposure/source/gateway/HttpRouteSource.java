package io.meshdns.exposure.source.gateway;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;

/** ExternalDNS's {@code --source=gateway-httproute}: HTTPRoute (v1) attached to Gateway listeners of protocol HTTP. */
@Singleton
public final class HttpRouteSource extends GatewayRouteSource {

    @Inject
    public HttpRouteSource(GatewayConfig config) {
        this(GatewayFilter.of(config));
    }

    public HttpRouteSource(GatewayFilter filter) {
        super("gateway-httproute", "HTTPRoute", "v1", "httproutes", "HTTP", filter);
    }
}
