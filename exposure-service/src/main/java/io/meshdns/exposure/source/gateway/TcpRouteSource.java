package io.meshdns.exposure.source.gateway;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;

/** ExternalDNS's {@code --source=gateway-tcproute}: TCPRoute (v1alpha2) attached to Gateway listeners of protocol TCP. */
@Singleton
public final class TcpRouteSource extends GatewayRouteSource {

    @Inject
    public TcpRouteSource(GatewayConfig config) {
        this(GatewayFilter.of(config));
    }

    public TcpRouteSource(GatewayFilter filter) {
        super("gateway-tcproute", "TCPRoute", "v1alpha2", "tcproutes", "TCP", filter);
    }
}
