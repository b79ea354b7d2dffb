package io.meshdns.dns.server;

import io.meshdns.dns.DnsClient;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vertx.core.Vertx;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.DatagramChannel;
import java.nio.channels.ServerSocketChannel;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The DNS sockets are on epoll wherever Netty's epoll loads, whatever transport Vert.x runs on: with Vert.x on
 * the JDK transport (as in a native image) they used to follow it onto NIO, one recvfrom and one sendto per query,
 * and reuse-port refused to start. Fails if the epoll-capable path falls back silently.
 */
@QuarkusTest
@TestProfile(ListenerTransportProfile.class)
class ListenerTransportTest {
    @Inject
    DnsServer server;
    @Inject
    Vertx vertx;

    @Test
    void theDnsSocketsAreOnEpollWhileVertxIsOnTheJdkTransport() throws Exception {
        assertTrue(Epoll.isAvailable(), () -> "Netty's epoll should load on this Linux x86_64 build machine: "
                + Epoll.unavailabilityCause());
        assertFalse(vertx.isNativeTransportEnabled(), "the profile puts Vert.x on the JDK transport, as a native image does");
        assertEquals("epoll", server.transport());
        List<Class<?>> classes = server.channelClasses();
        assertEquals(List.of(EpollDatagramChannel.class, EpollServerSocketChannel.class), classes);

        DnsClient client = new DnsClient(server.boundPort());
        for (Message answer : List.of(client.udp("small.tcp.test.", Type.A), client.tcp("small.tcp.test.", Type.A))) {
            assertEquals(Rcode.NOERROR, answer.getRcode());
            assertEquals("192.0.2.1", ((ARecord) answer.getSection(Section.ANSWER).get(0)).getAddress().getHostAddress());
        }
    }

    /** A second instance can bind the same UDP and TCP port only if ours were opened with SO_REUSEPORT too. */
    @Test
    void reusePortLetsASecondSocketShareBothPorts() throws Exception {
        int port = server.boundPort();
        try (DatagramChannel udp = DatagramChannel.open(java.net.StandardProtocolFamily.INET);
             ServerSocketChannel tcp = ServerSocketChannel.open()) {
            udp.setOption(StandardSocketOptions.SO_REUSEPORT, true);
            udp.bind(new InetSocketAddress("127.0.0.1", port));
            tcp.setOption(StandardSocketOptions.SO_REUSEPORT, true);
            tcp.bind(new InetSocketAddress("127.0.0.1", port));
        }
    }
}
