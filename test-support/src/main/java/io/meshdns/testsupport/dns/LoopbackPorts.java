package io.meshdns.testsupport.dns;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Loopback ports free for both TCP and UDP at the time of asking (DNS servers need both). */
public final class LoopbackPorts {
    private LoopbackPorts() {
    }

    public static int pick() {
        for (int attempt = 0; attempt < 50; attempt++) {
            try (ServerSocket tcp = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                int port = tcp.getLocalPort();
                try (DatagramSocket udp = new DatagramSocket(port, InetAddress.getLoopbackAddress())) {
                    return port;
                } catch (IOException ignored) {
                    // UDP side taken: try another
                }
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException("no free loopback port");
    }
}
