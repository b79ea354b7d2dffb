package io.meshdns.dns.forward;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * One upstream server address. {@link #label()} is CoreDNS's {@code to} label, e.g. "127.0.0.1:53", or
 * "tls://9.9.9.9:853" for DNS over TLS (RFC 7858), whose certificate must name {@link #serverName()}.
 */
public record Upstream(InetSocketAddress address, String label, boolean tls, String serverName) {

    public static final int DNS_PORT = 53;
    public static final int DOT_PORT = 853;
    private static final String TLS_SCHEME = "tls://";
    private static final String DNS_SCHEME = "dns://";

    public Upstream(InetSocketAddress address, String label) {
        this(address, label, false, null);
    }

    public String hostAddress() {
        return address.getAddress().getHostAddress();
    }

    public int port() {
        return address.getPort();
    }

    public boolean isIpv6() {
        return address.getAddress() instanceof java.net.Inet6Address;
    }

    public static Upstream parse(String spec, String key) {
        return parse(spec, key, null);
    }

    /**
     * Parses {@code host[:port]} or {@code [v6addr][:port]} (a bare IPv6 address is accepted too), optionally
     * after {@code dns://} (plain DNS, as CoreDNS writes it) or {@code tls://} (DNS over TLS, port 853 by default).
     * A TLS upstream's certificate must name its server name: {@code tls://9.9.9.9#dns.quad9.net}, else
     * {@code defaultServerName} ({@code meshdns.dns.forward.tls.server-name}), else the host when it is a name.
     * Host names are resolved once, here, at start.
     *
     * @throws IllegalArgumentException naming {@code key} when the entry is not valid
     */
    public static Upstream parse(String spec, String key, String defaultServerName) {
        String s = spec.trim();
        boolean tls = false;
        String serverName = null;
        int scheme = s.indexOf("://");
        if (scheme >= 0) {
            String prefix = s.substring(0, scheme + 3).toLowerCase(java.util.Locale.ROOT);
            if (prefix.equals(TLS_SCHEME)) {
                tls = true;
            } else if (!prefix.equals(DNS_SCHEME)) {
                throw new IllegalArgumentException(key + ": '" + spec + "' has the scheme '" + prefix
                        + "': only dns:// (plain, the default) and tls:// (DNS over TLS) are served");
            }
            s = s.substring(scheme + 3);
        }
        int hash = s.indexOf('#');
        if (hash >= 0) {
            if (!tls) {
                throw invalid(key, spec, "a server name after '#' is for tls:// upstreams");
            }
            serverName = s.substring(hash + 1).trim();
            s = s.substring(0, hash);
            if (!serverName.matches("(?i)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")) {
                throw invalid(key, spec, "'" + serverName + "' is not a server name");
            }
        }
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
        int portNumber = tls ? DOT_PORT : DNS_PORT;
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
        if (!tls) {
            return new Upstream(new InetSocketAddress(address, portNumber), label);
        }
        if (serverName == null) {
            serverName = defaultServerName != null && !defaultServerName.isBlank() ? defaultServerName.trim()
                    : isIpLiteral(host) ? null : host;
        }
        if (serverName == null) {
            throw new IllegalArgumentException(key + ": '" + spec + "' needs the server name its certificate carries: "
                    + "tls://" + host + "#dns.example.net, or meshdns.dns.forward.tls.server-name");
        }
        return new Upstream(new InetSocketAddress(address, portNumber), TLS_SCHEME + label, true, serverName);
    }

    private static boolean isIpLiteral(String host) {
        return host.indexOf(':') >= 0 || host.matches("[0-9.]+");
    }

    private static IllegalArgumentException invalid(String key, String spec, String why) {
        return new IllegalArgumentException(key + ": '" + spec + "' is not a valid host[:port] (" + why + ")");
    }

    @Override
    public String toString() {
        return label;
    }
}
