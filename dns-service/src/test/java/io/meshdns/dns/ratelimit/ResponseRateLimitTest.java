package io.meshdns.dns.ratelimit;

import io.meshdns.dns.DnsClient;
import io.meshdns.dns.server.DnsServer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The response-rate limit over real UDP: 127.0.0.2 floods (2,000 queries as fast as it can send, bounded) past the
 * profile's 50 answers a second and gets its answers cut to the rate, every second excess query a truncated reply
 * and the rest dropped; 127.0.0.3, asking at a polite 40 a second at the same time, keeps full service; over TCP the
 * flooding client is answered (the way a slipped reply sends it). 127.0.0.1 is the one exempt client here: it is
 * answered every time even while 127.0.0.2 floods.
 */
@QuarkusTest
@TestProfile(RrlProfile.class)
class ResponseRateLimitTest {
    private static final int FLOOD = 2_000;

    @Inject
    DnsServer server;

    @Test
    void aFloodingClientIsCutToTheRateWhileAnotherKeepsFullService() throws Exception {
        int port = server.boundPort();
        AtomicInteger politeAnswered = new AtomicInteger();
        Thread polite = new Thread(() -> {
            try {
                SimpleResolver r = new SimpleResolver(InetAddress.getLoopbackAddress());
                r.setPort(port);
                r.setLocalAddress(new InetSocketAddress(InetAddress.getByName("127.0.0.3"), 0));
                r.setTimeout(Duration.ofSeconds(2));
                for (int i = 0; i < 40; i++) {
                    Message m = r.send(DnsClient.query("small.tcp.test.", Type.A, DClass.IN));
                    if (m.getRcode() == Rcode.NOERROR && !m.getHeader().getFlag(Flags.TC) && m.getSection(Section.ANSWER).size() == 1) {
                        politeAnswered.incrementAndGet();
                    }
                    Thread.sleep(25);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        polite.start();

        int answered = 0;
        int truncated = 0;
        long started = System.nanoTime();
        try (DatagramSocket flooder = new DatagramSocket(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0))) {
            flooder.setSoTimeout(1);
            flooder.setReceiveBufferSize(4 << 20);
            InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
            byte[] buf = new byte[4096];
            for (int i = 0; i < FLOOD; i++) {
                Message q = DnsClient.query("small.tcp.test.", Type.A, DClass.IN);
                q.getHeader().setID(i & 0xFFFF);
                byte[] wire = q.toWire();
                flooder.send(new DatagramPacket(wire, wire.length, target));
            }
            flooder.setSoTimeout(500);
            while (true) {
                DatagramPacket in = new DatagramPacket(buf, buf.length);
                try {
                    flooder.receive(in);
                } catch (SocketTimeoutException e) {
                    break;
                }
                Message m = new Message(java.util.Arrays.copyOf(in.getData(), in.getLength()));
                if (m.getHeader().getFlag(Flags.TC)) {
                    truncated++;
                    assertTrue(in.getLength() <= DnsClient.query("small.tcp.test.", Type.A, DClass.IN).toWire().length,
                            "a slipped reply is never larger than the query");
                } else {
                    answered++;
                }
            }
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        polite.join(10_000);
        System.out.printf("RRL: flood of %d from 127.0.0.2 in %.2f s: %d answered, %d truncated (slip), %d dropped; "
                + "127.0.0.3: %d of 40 answered%n", FLOOD, seconds, answered, truncated, FLOOD - answered - truncated, politeAnswered.get());
        int allowed = (int) Math.ceil(seconds + 1) * RrlProfile.RATE;
        assertTrue(answered <= allowed, answered + " answered in " + seconds + " s, the rate allows " + allowed);
        assertTrue(answered >= RrlProfile.RATE / 2, "the first answers of each second still go out: " + answered);
        assertTrue(truncated > 0, "every second excess query slips");
        assertEquals(40, politeAnswered.get(), "the polite client keeps full service");

        SimpleResolver tcp = new SimpleResolver(InetAddress.getLoopbackAddress());
        tcp.setPort(port);
        tcp.setTCP(true);
        tcp.setLocalAddress(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0));
        assertEquals(Rcode.NOERROR, tcp.send(DnsClient.query("small.tcp.test.", Type.A, DClass.IN)).getRcode(), "TCP is never limited");
    }
}
