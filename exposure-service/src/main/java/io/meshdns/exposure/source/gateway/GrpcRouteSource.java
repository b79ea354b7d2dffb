package io.meshdns.exposure.source.gateway;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;

/** ExternalDNS's {@code --source=gateway-grpcroute}: GRPCRoute (v1) attached to Gateway listeners of protocol HTTP. */
@Singleton
public final class GrpcRouteSource extends GatewayRouteSource {

    @Inject
    public GrpcRouteSource(GatewayConfig config) {
        this(GatewayFilter.of(config));
    }

    public GrpcRouteSource(GatewayFilter filter) {
        super("gateway-grpcroute", "GRPCRoute", "v1", "grpcroutes", "HTTP", filter);
    }
}
