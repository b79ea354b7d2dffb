package io.meshdns.testsupport.dns;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Loopback ports free for both TCP and UDP at the time of asking (DNS servers need both). */
public final class LoopbackPorts {
    /**
     * The kernel may hand the same ephemeral port out again once we close it: two calls in a row (a service's HTTP
     * port, then its DNS port) must still get different ports, so a port is never handed out twice in a JVM.
     */
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    private LoopbackPorts() {
    }

    public static int pick() {
        for (int attempt = 0; attempt < 50; attempt++) {
            try (ServerSocket tcp = new ServerSocket()) {
                tcp.setReuseAddress(false);
                tcp.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                try (DatagramSocket udp = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), tcp.getLocalPort()))) {
                    if (HANDED_OUT.add(udp.getLocalPort())) return udp.getLocalPort();
                }
            } catch (IOException e) {
                // taken for UDP: try another
            }
        }
        throw new IllegalStateException("no free loopback port");
    }
}
