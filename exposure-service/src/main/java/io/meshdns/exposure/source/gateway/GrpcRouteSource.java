package io.meshdns.exposure.source.gateway;

import jakarta.inject.Singleton;

/** ExternalDNS's {@code --source=gateway-grpcroute}: GRPCRoute (v1) attached to Gateway listeners of protocol HTTP. */
@Singleton
public final class GrpcRouteSource extends GatewayRouteSource {

    public GrpcRouteSource(GatewayConfig config) {
        super(RouteKind.GRPC, config);
    }
}
