package io.meshdns.exposure.source;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.List;

/**
 * One kind of desired-record source, ExternalDNS's {@code --source}: a CDI bean collected with {@code @All}.
 * Its {@link #name()} is the one name used everywhere (meshdns.exposure.sources, Problems, metrics, the status
 * page). The cluster informers and the manifest reader both hand it objects of the kinds it declares; it
 * translates each object of {@link #kind()} on its own, purely. A new source is one class implementing this
 * (plus one config mapping if it has options): nothing in sync/ or config/ changes.
 */
public interface Source {

    /** The ExternalDNS {@code --source} name: service, ingress, crd, gateway-httproute, istio-gateway, … */
    String name();

    /** The kind whose objects this source translates, one at a time. */
    WatchedKind kind();

    /** Further kinds it reads as context (a Service's Nodes and EndpointSlices, a route's Gateways). */
    default List<WatchedKind> context() {
        return List.of();
    }

    /** One object of {@link #kind()} → endpoints and problems in {@code out}; may throw (the caller contains it). */
    void translate(HasMetadata object, SourceContext context, SourceOutput out);
}
