package io.meshdns.model;

import java.util.List;

/**
 * One endpoint of an EndpointSlice. {@code ready} follows the slice's condition (a missing
 * condition counts as ready, as the EndpointSlice API says). {@code zone}: the endpoint's zone (the EndpointSlice
 * controller copies its Node's {@code topology.kubernetes.io/zone}); {@code forZones}: the zones of its topology
 * hint ({@code hints.forZones}), empty without one.
 */
public record EndpointAddress(List<String> addresses, String hostname, boolean ready, String nodeName, String podName,
                              String zone, List<String> forZones) {
    public EndpointAddress {
        addresses = addresses == null ? List.of() : List.copyOf(addresses);
        forZones = forZones == null ? List.of() : List.copyOf(forZones);
    }

    public EndpointAddress(List<String> addresses, String hostname, boolean ready, String nodeName, String podName) {
        this(addresses, hostname, ready, nodeName, podName, null, List.of());
    }
}
