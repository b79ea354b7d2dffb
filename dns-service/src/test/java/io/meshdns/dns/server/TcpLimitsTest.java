package io.meshdns.dns.server;

import io.meshdns.dns.DnsClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Type;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static io.meshdns.dns.server.TcpTestClient.answeredFrom;
import static io.meshdns.dns.server.TcpTestClient.frame;
import static io.meshdns.dns.server.TcpTestClient.metric;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The TCP limits over real sockets: a client that pipelines queries with ~1.1 KB answers and never reads
 * is no longer read (the server's queued answers stay bounded) and is cut, while other clients are all
 * answered; a busy client's connection cap (eviction of idle ones: {@link TcpEvictionTest}); the absolute connection age against a client that
 * trickles one byte at a time to keep the idle timer alive (slowloris).
 */
@QuarkusTest
@TestProfile(TcpLimitsProfile.class)
class TcpLimitsTest {
    /** Queries the non-reading client tries to send: 44 MB of answers, were they all queued. */
    private static final int FLOOD_QUERIES = 40_000;
    /** The most the server may have answered to it: its output buffers plus what the kernel's socket buffers hold. */
    private static final long ANSWERED_BYTES_BOUND = 8L * 1024 * 1024;

    @Inject
    DnsServer server;
    @Inject
    ListenerMetrics listenerMetrics;

    int port;

    @BeforeEach
    void noConnectionsLeftFromTheLastTest() {
        port = server.boundPort();
        await().atMost(Duration.ofSeconds(10)).until(() -> listenerMetrics.open().get() == 0);
    }

    @Test
    void aClientThatNeverReadsIsPausedAndCutWhileOthersAreAnswered() throws Exception {
        double answeredBefore = metric("coredns_dns_requests_total{", "proto=\"tcp\"", "type=\"TXT\"", "zone=\"tcp.test.\"");
        double pausesBefore = metric("meshdns_dns_tcp_read_pauses_total");
        double openBefore = metric("meshdns_dns_tcp_connections ");
        byte[] frame = frame(DnsClient.query("big.tcp.test.", Type.TXT, DClass.IN).toWire());
        try (Socket bad = new Socket()) {
            bad.setReceiveBufferSize(8192);
            bad.setSendBufferSize(8192);
            bad.connect(new InetSocketAddress("127.0.0.1", port));
            AtomicInteger sent = new AtomicInteger();
            Thread writer = new Thread(() -> flood(bad, frame, sent), "non-reading-client");
            writer.setDaemon(true);
            writer.start();
            await().atMost(Duration.ofSeconds(5)).until(() -> metric("meshdns_dns_tcp_connections ") > openBefore);

            // Other clients, over TCP and UDP, while the bad one floods: every probe must be answered.
            DnsClient probe = new DnsClient(port);
            int answered = 0;
            int probes = 20;
            for (int i = 0; i < probes; i++) {
                Message m = i % 2 == 0 ? probe.tcp("small.tcp.test.", Type.A) : probe.udp("small.tcp.test.", Type.A);
                if (m.getRcode() == Rcode.NOERROR && m.getSection(org.xbill.DNS.Section.ANSWER).size() == 1) answered++;
                Thread.sleep(100);
            }
            assertEquals(probes, answered, "probes answered while a client floods without reading");
            writer.join(Duration.ofSeconds(10).toMillis());

            double answeredToBad = metric("coredns_dns_requests_total{", "proto=\"tcp\"", "type=\"TXT\"", "zone=\"tcp.test.\"")
                    - answeredBefore;
            long answerBytes = frame.length + 1100L;
            System.out.printf("non-reading client: %d queries sent, %d answered%n", sent.get(), (long) answeredToBad);
            assertTrue(answeredToBad * answerBytes <= ANSWERED_BYTES_BOUND,
                    "the server kept answering a client that reads nothing: " + (long) answeredToBad + " of "
                            + sent.get() + " queries answered (" + (long) (answeredToBad * answerBytes / 1024) + " KiB)");
            assertTrue(metric("meshdns_dns_tcp_read_pauses_total") > pausesBefore, "reading paused");

            // Not draining, the connection goes idle and the server closes it. Wait for that before reading: on a
            // loaded machine the server may still be filling the kernel's buffers when the probes are done, and a
            // read then would be the client draining, not a stalled connection.
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                    .until(() -> metric("meshdns_dns_tcp_connections ") <= openBefore);
            // Reading now finds what the kernel held, then EOF.
            bad.setSoTimeout((int) (TcpLimitsProfile.IDLE_MILLIS + 5000));
            DataInputStream in = new DataInputStream(bad.getInputStream());
            int read = 0;
            boolean closed = false;
            try {
                while (read < FLOOD_QUERIES) {
                    int length = in.readUnsignedShort();
                    in.skipNBytes(length);
                    read++;
                }
            } catch (EOFException | SocketException e) {
                closed = true;
            } catch (SocketTimeoutException e) {
                closed = false;
            }
            assertTrue(closed, "the server closed the stalled connection (read " + read + " answers first)");
            assertTrue(read < FLOOD_QUERIES, "not every query was answered: " + read);
        }
    }

    /** A connection with a query being answered is never evicted: when all of a client's are busy, the cap refuses. */
    @Test
    void whenEveryConnectionOfTheClientIsBusyTheNewOneIsRefused() throws Exception {
        double perClientBefore = metric("meshdns_dns_tcp_connections_refused_total{", "reason=\"max-connections-per-client\"");
        List<Socket> busy = new ArrayList<>();
        try {
            for (int i = 0; i < TcpLimitsProfile.MAX_PER_CLIENT; i++) {
                Socket s = new Socket();
                s.bind(new InetSocketAddress("127.0.0.1", 0));
                s.connect(new InetSocketAddress("127.0.0.1", port));
                // Forwarded to the upstream that never answers: in flight until the forwarder gives up.
                s.getOutputStream().write(frame(DnsClient.query("waiting-" + i + ".forwarded.test.", Type.A, DClass.IN).toWire()));
                busy.add(s);
            }
            // Let the server read the four queries (each then waits up to the 2 s upstream timeout).
            await().atMost(Duration.ofSeconds(5)).until(() -> listenerMetrics.open().get() == TcpLimitsProfile.MAX_PER_CLIENT);
            Thread.sleep(300);
            assertRefused("127.0.0.1");
            assertEquals(perClientBefore + 1, metric("meshdns_dns_tcp_connections_refused_total{",
                    "reason=\"max-connections-per-client\""));
        } finally {
            for (Socket s : busy) s.close();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> listenerMetrics.open().get() == 0);
        answeredFrom("127.0.0.1", port).close();
    }

    @Test
    void aConnectionTricklingBytesIsClosedAtItsMaximumAge() throws Exception {
        double before = metric("meshdns_dns_tcp_connections_closed_total{", "reason=\"max-connection-age\"");
        byte[] frame = frame(DnsClient.query("small.tcp.test.", Type.A, DClass.IN).toWire());
        try (Socket slow = new Socket("127.0.0.1", port)) {
            slow.setSoTimeout(1);
            long start = System.nanoTime();
            long deadline = start + Duration.ofSeconds(15).toNanos();
            OutputStream out = slow.getOutputStream();
            boolean closed = false;
            for (int i = 0; System.nanoTime() < deadline && !closed; i++) {
                try {
                    out.write(frame[i % frame.length]); // one byte every 400 ms: less than the idle timeout apart
                    out.flush();
                    Thread.sleep(400);
                    closed = slow.getInputStream().read() < 0;
                } catch (SocketTimeoutException e) {
                    // nothing to read yet: still open
                } catch (IOException e) {
                    closed = true;
                }
            }
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(closed, "a connection trickling a byte every 400 ms is still open after " + millis + " ms");
            assertTrue(millis >= TcpLimitsProfile.MAX_AGE_MILLIS - 100 && millis < TcpLimitsProfile.MAX_AGE_MILLIS + 3000,
                    "closed after " + millis + " ms, the maximum age is " + TcpLimitsProfile.MAX_AGE_MILLIS + " ms");
        }
        assertEquals(before + 1, metric("meshdns_dns_tcp_connections_closed_total{", "reason=\"max-connection-age\""));
    }

    /** Writes the frame again and again until FLOOD_QUERIES are out, the server stops taking them (10 s), or it closes. */
    private static void flood(Socket socket, byte[] frame, AtomicInteger sent) {
        byte[] batch = new byte[frame.length * 100];
        for (int i = 0; i < 100; i++) System.arraycopy(frame, 0, batch, i * frame.length, frame.length);
        try {
            OutputStream out = socket.getOutputStream();
            long deadline = System.nanoTime() + Duration.ofSeconds(8).toNanos();
            Thread watchdog = new Thread(() -> {
                try {
                    Thread.sleep(Duration.ofSeconds(9).toMillis());
                    socket.shutdownOutput(); // unblocks a write the server no longer reads
                } catch (InterruptedException | IOException ignored) {
                    // done, or already closed
                }
            });
            watchdog.setDaemon(true);
            watchdog.start();
            while (sent.get() < FLOOD_QUERIES && System.nanoTime() < deadline) {
                out.write(batch);
                sent.addAndGet(100);
            }
            watchdog.interrupt();
        } catch (IOException e) {
            // the server closed it, or the watchdog ended the write
        }
    }

    private void assertRefused(String source) throws IOException {
        try (Socket s = new Socket()) {
            s.bind(new InetSocketAddress(source, 0));
            s.connect(new InetSocketAddress("127.0.0.1", port));
            s.setSoTimeout(5000);
            try {
                s.getOutputStream().write(frame(DnsClient.query("small.tcp.test.", Type.A, DClass.IN).toWire()));
                int first = s.getInputStream().read();
                assertEquals(-1, first, "a connection from " + source + " over the cap was answered");
            } catch (SocketException e) {
                // reset: refused as well
            }
        }
    }

}
