package io.meshdns.dns.server;

import io.meshdns.dns.DnsClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code meshdns.dns.udp-workers=2}: two UDP sockets share the port (SO_REUSEPORT), each read by its own event loop,
 * and the kernel spreads client flows over them by source port: queries from many source ports are all answered,
 * and both sockets read some of them.
 */
@QuarkusTest
@TestProfile(UdpWorkersProfile.class)
class UdpWorkersTest {
    private static final int SOURCE_PORTS = 64;

    @Inject
    DnsServer server;

    @Test
    void twoSocketsOnOnePortEachOnItsOwnEventLoop() {
        List<UdpListener> sockets = server.udpSockets();
        assertEquals(2, sockets.size());
        Set<Object> loops = new HashSet<>();
        for (UdpListener s : sockets) {
            assertEquals(server.boundPort(), s.port());
            loops.add(s.eventLoop());
        }
        assertEquals(2, loops.size(), "each worker on an event loop of its own");
        assertEquals(3, server.channelClasses().size(), "two UDP sockets and the TCP one");
    }

    @Test
    void queriesFromManySourcePortsAreAnsweredByBothWorkers() throws Exception {
        List<UdpListener> sockets = server.udpSockets();
        long[] before = sockets.stream().mapToLong(UdpListener::datagrams).toArray();
        InetSocketAddress to = new InetSocketAddress("127.0.0.1", server.boundPort());
        for (int i = 0; i < SOURCE_PORTS; i++) {
            // A socket of its own per query: a new source port, so a new flow for the kernel to place.
            try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
                client.setSoTimeout(5000);
                Message query = DnsClient.query("small.tcp.test.", Type.A, 1);
                query.getHeader().setID(i);
                byte[] wire = query.toWire();
                client.send(new DatagramPacket(wire, wire.length, to));
                DatagramPacket reply = new DatagramPacket(new byte[512], 512);
                client.receive(reply);
                Message answer = new Message(java.util.Arrays.copyOf(reply.getData(), reply.getLength()));
                assertEquals(i, answer.getHeader().getID());
                assertEquals(Rcode.NOERROR, answer.getRcode());
                assertEquals("192.0.2.1", ((ARecord) answer.getSection(Section.ANSWER).get(0)).getAddress().getHostAddress());
            }
        }
        long total = 0;
        for (int w = 0; w < sockets.size(); w++) {
            long read = sockets.get(w).datagrams() - before[w];
            // Flows are hashed over the two sockets: all 64 on one has a probability of 2^-63.
            assertTrue(read > 0, "worker " + w + " read none of " + SOURCE_PORTS + " flows");
            total += read;
        }
        assertEquals(SOURCE_PORTS, total, "each query read once, by one of the workers");
    }
}
