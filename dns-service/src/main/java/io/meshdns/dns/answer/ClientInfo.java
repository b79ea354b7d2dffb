package io.meshdns.dns.answer;

/**
 * Who asked, and how. {@code address} is the sender's IP as text, {@code port} its port;
 * {@code ipv6} gives CoreDNS's {@code family} label (1 = IPv4, 2 = IPv6).
 */
public record ClientInfo(String address, int port, boolean ipv6, Transport transport) {
}
