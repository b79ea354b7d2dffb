package io.meshdns.dns.forward;

import io.meshdns.dns.base.SocketTransport;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Type;
import org.xbill.DNS.DClass;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The forwarder's upstream UDP sockets are on the DNS sockets' own transport (epoll wherever it loads), not on
 * Vert.x's: with Vert.x on the JDK transport, as in every native image, they used to follow it onto NIO (one sendto and
 * one recvfrom per forwarded query). Fails if the epoll-capable path falls back silently.
 */
class UdpSocketPoolTest {

    @Test
    void theUpstreamSocketsAreOnEpollWhileVertxIsOnTheJdkTransport() throws Exception {
        assertTrue(Epoll.isAvailable(), () -> "Netty's epoll should load on this Linux x86_64 build machine: "
                + Epoll.unavailabilityCause());
        Vertx vertx = Vertx.vertx();
        try (DatagramSocket upstream = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            assertFalse(vertx.isNativeTransportEnabled(), "Vert.x on the JDK transport, as in a native image");
            Thread responder = answering(upstream, 20);
            ForwardSettings settings = ForwardSettings.of(List.of(Upstream.parse("127.0.0.1:" + upstream.getLocalPort(), "test")))
                    .withUdpSockets(4, 2);
            try (UpstreamForwarder f = new UpstreamForwarder(vertx, settings, null, new SimpleMeterRegistry()).start()) {
                for (int i = 0; i < 20; i++) {
                    Message answer = f.forward(query("q" + i + ".example.")).toCompletableFuture().get(10, TimeUnit.SECONDS);
                    assertEquals(Rcode.NOERROR, answer.getRcode(), "answered through the pool");
                }
                assertEquals(Set.of(EpollDatagramChannel.class), f.udpChannelClasses());
            }
            responder.join(5000);
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    /** Close order: the sockets first, then their loops; a query still in flight fails at once instead of never. */
    @Test
    void closeFailsTheQueriesInFlightAndThenRefusesNewOnes() throws Exception {
        try (DatagramSocket blackHole = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            Upstream upstream = Upstream.parse("127.0.0.1:" + blackHole.getLocalPort(), "test");
            UdpSocketPool pool = new UdpSocketPool(1, 4, 256, new SecureRandom());
            pool.open(true, false);
            Record question = Record.newRecord(Name.fromString("late.example."), Type.A, DClass.IN);
            Message q = query("late.example.");
            CompletableFuture<Message> inFlight = pool.exchange(upstream, question, id -> UpstreamWire.upstreamQuery(q, id),
                    Duration.ofSeconds(30));
            blackHole.setSoTimeout(5000);
            blackHole.receive(new DatagramPacket(new byte[512], 512)); // it left
            long start = System.nanoTime();
            pool.close();
            ExecutionException e = assertThrows(ExecutionException.class, () -> inFlight.get(5, TimeUnit.SECONDS));
            assertInstanceOf(IOException.class, e.getCause());
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(6), "not the 30 s timeout");
            CompletableFuture<Message> after = pool.exchange(upstream, question, id -> UpstreamWire.upstreamQuery(q, id),
                    Duration.ofSeconds(1));
            e = assertThrows(ExecutionException.class, () -> after.get(5, TimeUnit.SECONDS));
            assertInstanceOf(IOException.class, e.getCause());
        }
    }

    /**
     * The queries asked in one turn of an event loop (a listener's read batch) share one socket, picked at random for
     * that turn, so they leave in one sendmmsg; queries of separate turns pick again. With a budget of one query per
     * socket, every query still has a port of its own.
     */
    @Test
    void theQueriesOfOneTurnShareARandomSocketAndEachTurnPicksAgain() throws Exception {
        DefaultEventLoop caller = new DefaultEventLoop();
        try (DatagramSocket upstreamSocket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            upstreamSocket.setSoTimeout(5000);
            Upstream upstream = Upstream.parse("127.0.0.1:" + upstreamSocket.getLocalPort(), "test");
            UdpSocketPool pool = new UdpSocketPool(2, 8, 256, new SecureRandom());
            try {
                pool.open(true, false);
                for (int i = 0; i < 200 && pool.bound() < 8; i++) { // the pool grows as picks land on empty slots
                    caller.submit(() -> ask(pool, upstream, "grow.example.")).get(5, TimeUnit.SECONDS);
                    sourcePortsOf(upstreamSocket, 1);
                    Thread.sleep(5);
                }
                assertEquals(8, pool.bound(), "the pool filled");

                caller.submit(() -> {
                    for (int i = 0; i < 6; i++) {
                        ask(pool, upstream, "burst" + i + ".example.");
                    }
                }).get(5, TimeUnit.SECONDS);
                assertEquals(1, Set.copyOf(sourcePortsOf(upstreamSocket, 6)).size(), "one turn, one socket");

                List<Integer> turns = new java.util.ArrayList<>();
                for (int i = 0; i < 12; i++) {
                    caller.submit(() -> ask(pool, upstream, "turn.example.")).get(5, TimeUnit.SECONDS);
                    turns.addAll(sourcePortsOf(upstreamSocket, 1));
                }
                assertTrue(Set.copyOf(turns).size() > 1, "each turn picks at random: " + turns);
            } finally {
                pool.close();
            }

            UdpSocketPool portPerQuery = new UdpSocketPool(2, 8, 1, new SecureRandom());
            try {
                portPerQuery.open(true, false);
                caller.submit(() -> {
                    for (int i = 0; i < 4; i++) {
                        ask(portPerQuery, upstream, "own" + i + ".example.");
                    }
                }).get(5, TimeUnit.SECONDS);
                assertEquals(4, Set.copyOf(sourcePortsOf(upstreamSocket, 4)).size(), "a port of its own per query");
            } finally {
                portPerQuery.close();
            }
        } finally {
            caller.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    /**
     * A query asked on a DNS listener's event loop is written, answered and completed on that loop: no hand-off to the
     * pool's loops and back (two thread wake-ups per forwarded query). Its socket is one of that loop's own, on a random
     * port that changes from turn to turn; closing the pool fails what is in flight there too.
     */
    @Test
    void aQueryAskedOnAListenerLoopIsExchangedOnThatLoop() throws Exception {
        EventLoopGroup listenerLoops = SocketTransport.best().newEventLoopGroup(1, "test-dns");
        EventLoop listener = listenerLoops.next();
        try (DatagramSocket upstreamSocket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             DatagramSocket blackHole = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            Upstream upstream = Upstream.parse("127.0.0.1:" + upstreamSocket.getLocalPort(), "test");
            Thread responder = answering(upstreamSocket, 12);
            UdpSocketPool pool = new UdpSocketPool(1, 8, 256, new SecureRandom());
            try {
                pool.open(true, false);
                Thread listenerThread = listener.submit(Thread::currentThread).get(5, TimeUnit.SECONDS);
                java.util.Set<Thread> completedOn = new java.util.HashSet<>();
                for (int i = 0; i < 12; i++) {
                    String name = "local" + i + ".example.";
                    CompletableFuture<Thread> answeredOn = listener.submit(() -> {
                        Message q = query(name);
                        return pool.exchange(upstream, q.getQuestion(), id -> UpstreamWire.upstreamQuery(q, id), Duration.ofSeconds(5))
                                .thenApply(m -> Thread.currentThread());
                    }).get(5, TimeUnit.SECONDS);
                    completedOn.add(answeredOn.get(5, TimeUnit.SECONDS));
                }
                assertEquals(Set.of(listenerThread), completedOn, "every exchange stayed on the listener's thread");
                assertTrue(pool.boundOnListenerLoops() > 1, "the listener loop has sockets of its own");
                assertEquals(1, pool.bound(), "the shared slots did not grow: no query used them");
                assertEquals(Set.of(SocketTransport.best() == SocketTransport.EPOLL ? EpollDatagramChannel.class
                        : io.netty.channel.socket.nio.NioDatagramChannel.class), pool.channelClasses());
                responder.join(5000);

                Upstream silent = Upstream.parse("127.0.0.1:" + blackHole.getLocalPort(), "test");
                CompletableFuture<Message> inFlight = listener.submit(() -> {
                    Message q = query("late.example.");
                    return pool.exchange(silent, q.getQuestion(), id -> UpstreamWire.upstreamQuery(q, id), Duration.ofSeconds(30));
                }).get(5, TimeUnit.SECONDS);
                blackHole.setSoTimeout(5000);
                blackHole.receive(new DatagramPacket(new byte[512], 512)); // it left
                pool.close();
                ExecutionException e = assertThrows(ExecutionException.class, () -> inFlight.get(5, TimeUnit.SECONDS));
                assertInstanceOf(IOException.class, e.getCause());
            } finally {
                pool.close();
            }
        } finally {
            listenerLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    private static void ask(UdpSocketPool pool, Upstream upstream, String name) {
        try {
            Message q = query(name);
            pool.exchange(upstream, q.getQuestion(), id -> UpstreamWire.upstreamQuery(q, id), Duration.ofSeconds(2));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<Integer> sourcePortsOf(DatagramSocket upstream, int count) throws IOException {
        List<Integer> ports = new java.util.ArrayList<>();
        for (int i = 0; i < count; i++) {
            DatagramPacket p = new DatagramPacket(new byte[512], 512);
            upstream.receive(p);
            ports.add(p.getPort());
        }
        return ports;
    }

    private static Message query(String name) throws IOException {
        Message m = Message.newQuery(Record.newRecord(Name.fromString(name), Type.A, DClass.IN));
        m.getHeader().setFlag(Flags.RD);
        return m;
    }

    /** Answers {@code count} queries (each with QR set, nothing else changed), then stops; at most 10 s. */
    private static Thread answering(DatagramSocket socket, int count) throws IOException {
        socket.setSoTimeout(10_000);
        Thread t = new Thread(() -> {
            byte[] buf = new byte[4096];
            try {
                for (int i = 0; i < count; i++) {
                    DatagramPacket p = new DatagramPacket(buf, buf.length);
                    socket.receive(p);
                    buf[2] |= (byte) 0x80;
                    socket.send(new DatagramPacket(buf, p.getLength(), p.getSocketAddress()));
                }
            } catch (IOException ignored) {
                // the test fails on its own get() timeout
            }
        }, "test-upstream");
        t.setDaemon(true);
        t.start();
        return t;
    }
}
