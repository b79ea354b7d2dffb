package io.meshdns.model;

/** A named service or endpoint port. {@code protocol} is TCP, UDP or SCTP as Kubernetes spells it. */
public record PortSpec(String name, String protocol, int port) {
    public PortSpec {
        protocol = protocol == null || protocol.isEmpty() ? "TCP" : protocol;
        name = name == null ? "" : name;
    }
}
