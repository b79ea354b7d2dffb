package io.meshdns.exposure.source;

/**
 * Something wrong with one Kubernetes object (an invalid annotation, an unusable DNSEndpoint entry).
 * It becomes a log line and a Kubernetes Event on the object; its resource counts as errored, so
 * the plan keeps that object's current records.
 */
public record Problem(String kind, String apiVersion, String namespace, String name, String uid, String reason,
                      String message) {

    public static final String INVALID_ANNOTATION = "InvalidAnnotation";
    public static final String INVALID_ENDPOINT = "InvalidEndpoint";
    /** The provider refused a record of this object (or it cannot be sent), or the object could not be translated at all; everything else was published. */
    public static final String INVALID = "Invalid";
    /** A record of this object was not written: someone else owns the name, or it would take another record's ownership TXT name. */
    public static final String CONFLICT = "Conflict";
    /** Normal Event: this object's records are in DNS as wanted. */
    public static final String PUBLISHED = "Published";
    /** ExternalDNS's event reasons (--events-emit), one Event per record written, deleted, or refused. */
    public static final String RECORD_READY = "RecordReady";
    public static final String RECORD_DELETED = "RecordDeleted";
    public static final String RECORD_ERROR = "RecordError";

    /** Warning: no Gateway has accepted the route's current generation; its records are withdrawn, as ExternalDNS does. */
    public static final String ROUTE_NOT_ACCEPTED = "RouteNotAccepted";
    /** Warning: a route hostname outside every matching listener's hostname is not published (the others are). */
    public static final String HOSTNAME_OUTSIDE_LISTENER = "HostnameOutsideListener";
    /** Warning: the Gateway has neither a target annotation nor status.addresses; the route's current records are kept. */
    public static final String GATEWAY_WITHOUT_ADDRESS = "GatewayWithoutAddress";

    /** Warning: meshdns.exposure.fqdn-template reads a label or annotation this object does not have; its current records are kept. */
    public static final String INVALID_FQDN_TEMPLATE = "InvalidFqdnTemplate";

    /** Warning on a ListenerSet whose parent Gateway does not exist: no route publishes through it (the pass goes on). */
    public static final String LISTENER_SET_WITHOUT_GATEWAY = "ListenerSetWithoutGateway";

    /** Warning: a gateway an object names does not exist; it gives no targets (the object's other gateways still do). */
    public static final String GATEWAY_NOT_FOUND = "GatewayNotFound";

    /** Warning: a host in the cluster's own zone is not published in an external zone (the object's other hosts are). */
    public static final String HOST_IN_CLUSTER_ZONE = "HostInClusterZone";
    /** Warning: a wildcard host without any address is not published (a wildcard at nothing would shadow its subtree). */
    public static final String WILDCARD_WITHOUT_TARGET = "WildcardWithoutTarget";

    /**
     * Whether the object's resource counts as errored, so the plan keeps its current records. Not for a route
     * its Gateway stopped accepting, a hostname outside the listener, a gateway that does not exist, a host in the cluster zone or
     * a wildcard without address: there the objects themselves say "not here", and keeping their records would keep them stale.
     */
    public boolean keepsRecords() {
        return !normal() && !ROUTE_NOT_ACCEPTED.equals(reason) && !HOSTNAME_OUTSIDE_LISTENER.equals(reason)
                && !GATEWAY_NOT_FOUND.equals(reason) && !HOST_IN_CLUSTER_ZONE.equals(reason) && !WILDCARD_WITHOUT_TARGET.equals(reason);
    }

    /** Normal (informational) rather than Warning. */
    public boolean normal() {
        return PUBLISHED.equals(reason) || RECORD_READY.equals(reason) || RECORD_DELETED.equals(reason);
    }

    /**
     * A problem about the object a registry resource key names ({@code service/ns/name},
     * {@code ingress/ns/name}, {@code crd/ns/name}); empty for a key that names no object.
     */
    public static java.util.Optional<Problem> about(String resourceKey, String reason, String message) {
        String[] p = resourceKey.split("/", 3);
        if (p.length != 3 || p[1].isEmpty() || p[2].isEmpty()) return java.util.Optional.empty();
        String[] kind = switch (p[0]) {
            case "service" -> new String[] {"Service", "v1"};
            case "ingress" -> new String[] {"Ingress", "networking.k8s.io/v1"};
            case "crd" -> new String[] {"DNSEndpoint", "externaldns.k8s.io/v1alpha1"};
            // only Istio's Gateway owns records under "gateway/" (Gateway API routes own theirs, never the Gateway)
            case "gateway" -> new String[] {"Gateway", "networking.istio.io/v1"};
            case "virtualservice" -> new String[] {"VirtualService", "networking.istio.io/v1"};
            case "serviceentry" -> new String[] {"ServiceEntry", "networking.istio.io/v1"};
            case "httproute" -> new String[] {"HTTPRoute", "gateway.networking.k8s.io/v1"};
            case "grpcroute" -> new String[] {"GRPCRoute", "gateway.networking.k8s.io/v1"};
            case "tlsroute" -> new String[] {"TLSRoute", "gateway.networking.k8s.io/v1alpha2"};
            case "tcproute" -> new String[] {"TCPRoute", "gateway.networking.k8s.io/v1alpha2"};
            case "udproute" -> new String[] {"UDPRoute", "gateway.networking.k8s.io/v1alpha2"};
            default -> null;
        };
        if (kind == null) return java.util.Optional.empty();
        return java.util.Optional.of(new Problem(kind[0], kind[1], p[1], p[2], null, reason, message));
    }

    public String resourceKey() {
        return SourceNames.resourceKey(kind, namespace, name);
    }
}
