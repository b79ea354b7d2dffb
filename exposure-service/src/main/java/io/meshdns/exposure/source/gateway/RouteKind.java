package io.meshdns.exposure.source.gateway;

import io.meshdns.exposure.source.WatchedKind;

/**
 * The Gateway API route kinds ExternalDNS reads, each its own {@code --source}: all that tells one route source from
 * another, a line each. Their translation is the one of {@link GatewayRouteSource}.
 */
public enum RouteKind {
    HTTP("gateway-httproute", "HTTPRoute", "v1", "httproutes", "HTTP"),
    GRPC("gateway-grpcroute", "GRPCRoute", "v1", "grpcroutes", "HTTP"),
    TLS("gateway-tlsroute", "TLSRoute", "v1alpha2", "tlsroutes", "TLS"),
    TCP("gateway-tcproute", "TCPRoute", "v1alpha2", "tcproutes", "TCP"),
    UDP("gateway-udproute", "UDPRoute", "v1alpha2", "udproutes", "UDP");

    /** The {@code --source} name (meshdns.exposure.sources). */
    final String sourceName;
    /** The route resource, in the Gateway API group. */
    final WatchedKind kind;
    /** The listener protocol a route of this kind attaches to ({@link GatewayRouteSource#protocolMatches}). */
    final String listenerProtocol;

    RouteKind(String sourceName, String kind, String version, String plural, String listenerProtocol) {
        this.sourceName = sourceName;
        this.kind = WatchedKind.custom(GatewayRouteSource.GROUP, version, kind, plural);
        this.listenerProtocol = listenerProtocol;
    }
}
