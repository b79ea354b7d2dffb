package io.meshdns.exposure.provider.rfc2136;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.meshdns.exposure.provider.ProviderException;
import io.meshdns.testsupport.dns.SoaResponder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Name;
import org.xbill.DNS.SOARecord;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The RFC 2136 provider's zone reader ({@link Rfc2136Provider#records}: SOA serial query, AXFR, then IXFR from the
 * cached copy applied as a diff) against a loopback server that answers with fuzzed transfer streams: 1 to 3
 * messages of records whose owner, type, TTL and raw RDATA are fuzzed (a valid SOA where the fuzzer picks one, so
 * transfers can complete). Real sockets, dnsjava's real client. A hostile or broken server may only make a read
 * fail with a {@link ProviderException}; any other throwable is a finding.
 */
class ZoneTransferFuzz {
    static final Name ZONE = Name.fromConstantString("example.test.");
    static final Name[] OWNERS = {ZONE, Name.fromConstantString("a.example.test."), Name.fromConstantString("B.example.test."),
            Name.fromConstantString("*.example.test."), Name.fromConstantString("other.invalid.")};
    static final int[] TYPES = {Type.SOA, Type.SOA, Type.A, Type.AAAA, Type.TXT, Type.CNAME, Type.MX, Type.SRV, Type.NS, Type.PTR,
            Type.CAA, Type.WKS, Type.NAPTR, Type.HTTPS, Type.OPT, Type.TSIG, 0, 65280};
    static ServerSocket tcp;
    static DatagramSocket udp;
    static volatile long serial;
    static volatile List<byte[]> stream = List.of();

    @BeforeAll
    static void serve() throws IOException {
        tcp = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        udp = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), tcp.getLocalPort()));
        SoaResponder.start(udp, () -> soa(serial), "fuzz-udp");
        Thread t = new Thread(ZoneTransferFuzz::answerTransfers, "fuzz-tcp");
        t.setDaemon(true);
        t.start();
    }

    @AfterAll
    static void stop() throws IOException {
        tcp.close();
        udp.close();
    }

    @FuzzTest(maxExecutions = 1_000_000, maxDuration = "25m")
    void transfer(FuzzedDataProvider data) throws Exception {
        allowLoopbackOnly();
        var provider = new Rfc2136Provider(new Rfc2136Provider.Settings("127.0.0.1", tcp.getLocalPort(), List.of(ZONE.toString()),
                Optional.empty(), Duration.ofSeconds(2), 300));
        for (int round = 0; round < 2; round++) { // the first reads by AXFR, the second by IXFR from the cached copy
            serial = data.consumeLong(0, 0xFFFFFFFFL);
            stream = messages(data);
            try {
                provider.records();
            } catch (ProviderException e) {
                // a failed read: the pass reports it and retries later
            }
        }
    }

    /**
     * The only server the provider talks to is ours on loopback: Jazzer's SSRF detector (it sees dnsjava's connect
     * now that dnsjava is instrumented) is told so, in the test itself, where Jazzer reads the policy; any other
     * destination is still a finding.
     */
    private static void allowLoopbackOnly() {
        try {
            com.code_intelligence.jazzer.api.BugDetectors.allowNetworkConnections(
                    (host, port) -> host.equals("127.0.0.1") || host.equals("localhost"));
        } catch (IllegalStateException e) {
            // regression mode: no Jazzer agent, so no detector to tell
        }
    }

    static List<byte[]> messages(FuzzedDataProvider data) throws IOException {
        List<byte[]> out = new ArrayList<>();
        int n = data.consumeInt(1, 3);
        for (int m = 0; m < n; m++) {
            List<byte[]> records = new ArrayList<>();
            int count = data.consumeInt(0, 6);
            for (int i = 0; i < count; i++) records.add(record(data));
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            DataOutputStream o = new DataOutputStream(b);
            o.writeShort(0); // the ID, set per query
            o.writeShort(0x8400 | (data.consumeBoolean() ? 0 : data.consumeInt(0, 0x7F))); // QR AA, rcode/flags maybe fuzzed
            o.writeShort(m == 0 ? 1 : 0);
            o.writeShort(records.size());
            o.writeShort(0);
            o.writeShort(0);
            if (m == 0) {
                o.write(ZONE.toWire());
                o.writeShort(data.consumeBoolean() ? Type.AXFR : Type.IXFR);
                o.writeShort(DClass.IN);
            }
            for (byte[] r : records) o.write(r);
            out.add(b.toByteArray());
        }
        return out;
    }

    static byte[] record(FuzzedDataProvider data) throws IOException {
        int type = data.pickValue(TYPES);
        Name owner = data.pickValue(OWNERS);
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        DataOutputStream o = new DataOutputStream(b);
        o.write(owner.toWire());
        o.writeShort(type);
        o.writeShort(data.consumeBoolean() ? DClass.IN : data.consumeInt(0, 0xFFFF));
        o.writeInt(data.consumeInt());
        byte[] rdata;
        if (type == Type.SOA && data.consumeBoolean()) {
            rdata = soa(data.consumeLong(0, 0xFFFFFFFFL)).rdataToWireCanonical();
        } else {
            rdata = data.consumeBytes(data.consumeInt(0, 64));
        }
        o.writeShort(rdata.length);
        o.write(rdata);
        return b.toByteArray();
    }

    static SOARecord soa(long serial) {
        return new SOARecord(ZONE, DClass.IN, 300, Name.fromConstantString("ns.example.test."),
                Name.fromConstantString("hostmaster.example.test."), serial, 3600, 600, 86400, 300);
    }

    private static void answerTransfers() {
        while (!tcp.isClosed()) {
            try (Socket s = tcp.accept()) {
                s.setSoTimeout(2000);
                DataInputStream in = new DataInputStream(s.getInputStream());
                int len = in.readUnsignedShort();
                byte[] query = in.readNBytes(len);
                DataOutputStream out = new DataOutputStream(s.getOutputStream());
                for (byte[] m : stream) {
                    byte[] w = m.clone();
                    w[0] = query[0];
                    w[1] = query[1];
                    out.writeShort(w.length);
                    out.write(w);
                }
                out.flush();
            } catch (IOException e) {
                // the client gave up or the server closed
            }
        }
    }
}
