package io.meshdns.dns.forward;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * One upstream server address. {@link #label()} is CoreDNS's {@code to} label, e.g. "127.0.0.1:53".
 */
public record Upstream(InetSocketAddress address, String label) {

    public static final int DNS_PORT = 53;

    public String hostAddress() {
        return address.getAddress().getHostAddress();
    }

    public int port() {
        return address.getPort();
    }

    public boolean isIpv6() {
        return address.getAddress() instanceof java.net.Inet6Address;
    }

    /**
     * Parses {@code host[:port]} or {@code [v6addr][:port]} (a bare IPv6 address is accepted too).
     * Host names are resolved once, here, at start.
     *
     * @throws IllegalArgumentException naming {@code key} when the entry is not valid
     */
    public static Upstream parse(String spec, String key) {
        String s = spec.trim();
        String host;
        String port = null;
        if (s.startsWith("[")) {
            int end = s.indexOf(']');
            if (end < 0) {
                throw invalid(key, spec, "unterminated '['");
            }
            host = s.substring(1, end);
            String rest = s.substring(end + 1);
            if (!rest.isEmpty()) {
                if (!rest.startsWith(":")) {
                    throw invalid(key, spec, "expected ':port' after ']'");
                }
                port = rest.substring(1);
            }
        } else if (s.indexOf(':') != s.lastIndexOf(':')) {
            host = s; // bare IPv6 address
        } else {
            int colon = s.indexOf(':');
            host = colon < 0 ? s : s.substring(0, colon);
            port = colon < 0 ? null : s.substring(colon + 1);
        }
        if (host.isEmpty()) {
            throw invalid(key, spec, "empty host");
        }
        int portNumber = DNS_PORT;
        if (port != null) {
            try {
                portNumber = Integer.parseInt(port);
            } catch (NumberFormatException e) {
                throw invalid(key, spec, "port is not a number");
            }
            if (portNumber < 1 || portNumber > 65535) {
                throw invalid(key, spec, "port out of range 1-65535");
            }
        }
        InetAddress address;
        try {
            address = InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw invalid(key, spec, "unknown host");
        }
        String label = address instanceof java.net.Inet6Address
                ? "[" + address.getHostAddress() + "]:" + portNumber
                : address.getHostAddress() + ":" + portNumber;
        return new Upstream(new InetSocketAddress(address, portNumber), label);
    }

    private static IllegalArgumentException invalid(String key, String spec, String why) {
        return new IllegalArgumentException(key + ": '" + spec + "' is not a valid host[:port] (" + why + ")");
    }

    @Override
    public String toString() {
        return label;
    }
}
