package io.meshdns.dns.forward;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollSocketChannel;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The forwarder's TCP upstream connections are on the DNS sockets' own transport (epoll wherever it loads), not on
 * Vert.x's: with Vert.x on the JDK transport, as in every native image, they used to follow it onto NIO. Fails if the
 * epoll-capable path falls back silently. The upstream here answers pipelined queries in reverse order, the first
 * answer split across two writes, so the framing and the matching by ID are exercised on that transport too.
 */
class StreamTransportTest {
    private static final int QUERIES = 8;

    @Test
    void theUpstreamConnectionsAreOnEpollWhileVertxIsOnTheJdkTransport() throws Exception {
        assertTrue(Epoll.isAvailable(), () -> "Netty's epoll should load on this Linux x86_64 build machine: "
                + Epoll.unavailabilityCause());
        Vertx vertx = Vertx.vertx();
        try (ServerSocket upstream = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            assertFalse(vertx.isNativeTransportEnabled(), "Vert.x on the JDK transport, as in a native image");
            Thread responder = answeringInReverse(upstream);
            ForwardSettings settings = ForwardSettings.of(List.of(Upstream.parse("127.0.0.1:" + upstream.getLocalPort(), "test")))
                    .withForceTcp(true);
            try (UpstreamForwarder f = new UpstreamForwarder(vertx, settings, null, new SimpleMeterRegistry()).start()) {
                List<CompletableFuture<Message>> answers = new ArrayList<>();
                for (int i = 0; i < QUERIES; i++) {
                    answers.add(f.forward(query("q" + i + ".example.")).toCompletableFuture());
                }
                for (int i = 0; i < QUERIES; i++) {
                    Message answer = answers.get(i).get(10, TimeUnit.SECONDS);
                    assertEquals(Rcode.NOERROR, answer.getRcode(), "q" + i);
                    assertEquals("q" + i + ".example.", answer.getQuestion().getName().toString());
                    assertEquals("192.0.2." + (i + 1),
                            ((ARecord) answer.getSection(Section.ANSWER).get(0)).getAddress().getHostAddress(), "q" + i);
                }
                assertEquals(Set.of(EpollSocketChannel.class), f.streamChannelClasses());
                assertEquals(1, f.openConnections().values().stream().mapToInt(Integer::intValue).sum(),
                        QUERIES + " pipelined queries, one connection");
            }
            responder.join(5000);
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    private static Message query(String name) throws IOException {
        Message m = Message.newQuery(Record.newRecord(Name.fromString(name), Type.A, DClass.IN));
        m.getHeader().setFlag(Flags.RD);
        return m;
    }

    /** Accepts one connection, reads {@link #QUERIES} queries, answers them last first; at most 10 s. */
    private static Thread answeringInReverse(ServerSocket server) throws IOException {
        server.setSoTimeout(10_000);
        Thread t = new Thread(() -> {
            try (Socket s = server.accept()) {
                s.setSoTimeout(10_000);
                DataInputStream in = new DataInputStream(s.getInputStream());
                List<byte[]> replies = new ArrayList<>();
                for (int i = 0; i < QUERIES; i++) {
                    byte[] wire = new byte[in.readUnsignedShort()];
                    in.readFully(wire);
                    Message q = new Message(wire);
                    String name = q.getQuestion().getName().toString();
                    int n = Integer.parseInt(name.substring(1, name.indexOf('.')));
                    Message r = new Message(q.getHeader().getID());
                    r.getHeader().setFlag(Flags.QR);
                    r.getHeader().setFlag(Flags.RD);
                    r.getHeader().setFlag(Flags.RA);
                    r.addRecord(q.getQuestion(), Section.QUESTION);
                    r.addRecord(new ARecord(q.getQuestion().getName(), DClass.IN, 60,
                            InetAddress.getByName("192.0.2." + (n + 1))), Section.ANSWER);
                    byte[] answer = r.toWire();
                    byte[] framed = new byte[answer.length + 2];
                    framed[0] = (byte) (answer.length >>> 8);
                    framed[1] = (byte) answer.length;
                    System.arraycopy(answer, 0, framed, 2, answer.length);
                    replies.add(framed);
                }
                OutputStream out = s.getOutputStream();
                for (int i = replies.size() - 1; i >= 0; i--) {
                    byte[] framed = replies.get(i);
                    if (i == replies.size() - 1) { // the length and half the message, then the rest
                        out.write(Arrays.copyOf(framed, 1 + framed.length / 2));
                        out.flush();
                        Thread.sleep(50);
                        out.write(Arrays.copyOfRange(framed, 1 + framed.length / 2, framed.length));
                    } else {
                        out.write(framed);
                    }
                }
                out.flush();
                in.read(); // until the forwarder closes the connection
            } catch (IOException | InterruptedException ignored) {
                // the test fails on its own get() timeout
            }
        }, "test-upstream");
        t.setDaemon(true);
        t.start();
        return t;
    }
}
