package io.meshdns.exposure.provider.rfc2136;

import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.testsupport.dns.SoaResponder;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A zone holding a record dnsjava reads but cannot write back (a WKS with an empty service bitmap, found by
 * ZoneTransferFuzz) is still read: that record is left out. Before, the read threw ArrayIndexOutOfBoundsException
 * and no pass of the provider could publish anything in the zone. A loopback server answers the SOA query and the
 * AXFR over real sockets; dnsjava's real transfer client reads them.
 */
class UnwritableZoneRecordTest {
    private static final Name ZONE = Name.fromConstantString("example.test.");
    private static final SOARecord SOA = new SOARecord(ZONE, DClass.IN, 300, Name.fromConstantString("ns.example.test."),
            Name.fromConstantString("hostmaster.example.test."), 7, 3600, 600, 86400, 300);

    @Test
    void aRecordThatCannotBeWrittenBackIsLeftOutAndTheRestIsRead() throws Exception {
        try (ServerSocket tcp = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
             DatagramSocket udp = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), tcp.getLocalPort()))) {
            SoaResponder.start(udp, () -> SOA, "zone-server-udp");
            daemon(() -> answerTransfer(tcp));
            var provider = new Rfc2136Provider(new Rfc2136Provider.Settings("127.0.0.1", tcp.getLocalPort(), List.of(ZONE.toString()),
                    Optional.empty(), Duration.ofSeconds(2), 300));
            List<Endpoint> read = provider.records();
            assertEquals(List.of("a.example.test A [192.0.2.1]"),
                    read.stream().map(e -> e.dnsName() + " " + e.recordType() + " " + e.targets()).toList());
        }
    }

    private static void daemon(Runnable r) {
        Thread t = new Thread(r, "zone-server");
        t.setDaemon(true);
        t.start();
    }

    /** SOA, a WKS of 192.0.2.9/TCP with no service bit (5 bytes of RDATA), an A, SOA: one AXFR message. */
    private static void answerTransfer(ServerSocket tcp) {
        try (Socket s = tcp.accept()) {
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] query = in.readNBytes(in.readUnsignedShort());
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            DataOutputStream o = new DataOutputStream(b);
            o.write(query, 0, 2);
            o.writeShort(0x8400);
            o.writeShort(1);
            o.writeShort(4);
            o.writeShort(0);
            o.writeShort(0);
            o.write(ZONE.toWire());
            o.writeShort(Type.AXFR);
            o.writeShort(DClass.IN);
            o.write(SOA.toWire(Section.ANSWER));
            o.write(Name.fromConstantString("w.example.test.").toWire());
            o.writeShort(Type.WKS);
            o.writeShort(DClass.IN);
            o.writeInt(300);
            o.writeShort(5);
            o.write(new byte[] {(byte) 192, 0, 2, 9, 6});
            Record a = new ARecord(Name.fromConstantString("a.example.test."), DClass.IN, 300, InetAddress.getByName("192.0.2.1"));
            o.write(a.toWire(Section.ANSWER));
            o.write(SOA.toWire(Section.ANSWER));
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeShort(b.size());
            out.write(b.toByteArray());
            out.flush();
            s.getInputStream().read(); // until the client closes
        } catch (IOException e) {
            // the client gave up
        }
    }
}
