package io.meshdns.dns.nodelocal;

import org.junit.jupiter.api.Test;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The upgrade hand-over asks whether another instance still serves any of the node-local addresses before it
 * removes the interface and rules: the new pod may listen on the second address only (before, only the first was
 * probed, and the wiring of a running instance was torn down).
 */
class HandOverProbeTest {
    @Test
    void anInstanceOnAnyOfTheAddressesKeepsTheWiring() throws Exception {
        try (DatagramSocket other = new DatagramSocket(new InetSocketAddress(InetAddress.getByName("127.0.0.3"), 0))) {
            int port = other.getLocalPort();
            assertEquals("127.0.0.3", NodeLocalService.servedByAnother(List.of("127.0.0.2", "127.0.0.3"), port));
            assertNull(NodeLocalService.servedByAnother(List.of("127.0.0.2", "127.0.0.4"), port), "nobody on these");
        }
    }
}
