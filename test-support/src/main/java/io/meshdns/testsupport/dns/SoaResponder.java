package io.meshdns.testsupport.dns;

import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.Section;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.util.Arrays;
import java.util.function.Supplier;

/**
 * The UDP half of a loopback zone server for a transfer client: every query is answered with its own question and
 * the zone's SOA as it is at that moment (what a client's serial check asks), until the socket is closed.
 */
public final class SoaResponder {
    private SoaResponder() {
    }

    /** Answers on a daemon thread of its own; {@code soa} is asked again for each query. */
    public static void start(DatagramSocket udp, Supplier<SOARecord> soa, String threadName) {
        Thread t = new Thread(() -> answerUntilClosed(udp, soa), threadName);
        t.setDaemon(true);
        t.start();
    }

    private static void answerUntilClosed(DatagramSocket udp, Supplier<SOARecord> soa) {
        byte[] buf = new byte[512];
        while (!udp.isClosed()) {
            try {
                DatagramPacket p = new DatagramPacket(buf, buf.length);
                udp.receive(p);
                Message q = new Message(Arrays.copyOf(p.getData(), p.getLength()));
                Message r = new Message(q.getHeader().getID());
                r.getHeader().setFlag(Flags.QR);
                r.addRecord(q.getQuestion(), Section.QUESTION);
                r.addRecord(soa.get(), Section.ANSWER);
                byte[] w = r.toWire();
                udp.send(new DatagramPacket(w, w.length, p.getSocketAddress()));
            } catch (IOException e) {
                // closed, or a query that does not parse: the client times out
            }
        }
    }
}
