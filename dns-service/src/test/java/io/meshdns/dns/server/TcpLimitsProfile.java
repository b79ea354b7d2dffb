package io.meshdns.dns.server;

import io.meshdns.dns.testing.ListenerTestProfile;

import java.util.Map;

/** Small TCP limits, so each one can be hit by a test over loopback in a few seconds; 127.0.0.0/8 may ask. */
public class TcpLimitsProfile extends ListenerTestProfile {
    static final int MAX_CONNECTIONS = 6;
    static final int MAX_PER_CLIENT = 4;
    static final long MAX_AGE_MILLIS = 3000;
    static final long IDLE_MILLIS = 2000;
    /**
     * An upstream that never answers, held open for the test JVM's life: a forwarded query keeps its connection
     * busy (a query in flight) until the forwarder gives up.
     */
    static final java.net.DatagramSocket SILENT_UPSTREAM = silent();

    private static java.net.DatagramSocket silent() {
        try {
            return new java.net.DatagramSocket(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0));
        } catch (java.net.SocketException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    protected Map<String, String> overrides() {
        return Map.of(
                "meshdns.dns.tcp.idle-timeout", IDLE_MILLIS + "ms",
                "meshdns.dns.tcp.max-connections", String.valueOf(MAX_CONNECTIONS),
                "meshdns.dns.tcp.max-connections-per-client", String.valueOf(MAX_PER_CLIENT),
                "meshdns.dns.tcp.max-connection-age", MAX_AGE_MILLIS + "ms",
                "meshdns.dns.query-log", "false",
                "meshdns.dns.upstreams", "127.0.0.1:" + SILENT_UPSTREAM.getLocalPort());
    }
}
