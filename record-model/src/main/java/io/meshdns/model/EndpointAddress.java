package io.meshdns.model;

import java.util.List;

/**
 * One endpoint of an EndpointSlice. {@code ready} follows the slice's condition (a missing
 * condition counts as ready, as the EndpointSlice API says).
 */
public record EndpointAddress(List<String> addresses, String hostname, boolean ready, String nodeName, String podName) {
    public EndpointAddress {
        addresses = addresses == null ? List.of() : List.copyOf(addresses);
    }
}
