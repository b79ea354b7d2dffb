package io.meshdns.dns.dynamic;

import io.meshdns.dns.Dig;
import io.meshdns.dns.DnsClient;
import io.meshdns.dns.server.DnsServer;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.TSIG;
import org.xbill.DNS.TSIGRecord;
import org.xbill.DNS.Type;
import org.xbill.DNS.Update;
import org.xbill.DNS.ZoneTransferIn;

import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RFC 2136 UPDATE and AXFR of dynamic zones, over real sockets with nsupdate, knsupdate, kdig, dig
 * and dnsjava. The zones (dyn.meshdns, dyn2.meshdns) and keys are in the %test profile; the journal
 * persists across runs under target/, so every test writes names of its own.
 */
@QuarkusTest
class DynamicZoneTest {
    static final String SECRET = "bWVzaGRucy10ZXN0LXNlY3JldC0wMTIzNDU2Nzg5YWI=";
    static final TSIG KEY = new TSIG(TSIG.HMAC_SHA256, "test-key.", SECRET);
    static final Name ZONE = Name.fromConstantString("dyn.meshdns.");
    private static final AtomicInteger COUNTER = new AtomicInteger();

    @Inject
    DnsServer server;
    int port;
    DnsClient client;

    @BeforeEach
    void setUp() {
        port = server.boundPort();
        client = new DnsClient(port);
    }

    /** A fresh owner name for this run and test. */
    static String fresh(String label) {
        return label + "-" + Long.toString(System.nanoTime() % 1_000_000_000L, 36) + "-" + COUNTER.incrementAndGet() + ".dyn.meshdns.";
    }

    Message send(Message m, boolean tcp) throws IOException {
        SimpleResolver r = new SimpleResolver(InetAddress.getByName("127.0.0.1"));
        r.setPort(port);
        r.setTCP(tcp);
        r.setEDNS(-1);
        r.setTimeout(Duration.ofSeconds(5));
        return r.send(m);
    }

    Message signed(Update u, boolean tcp, TSIG key) throws IOException {
        SimpleResolver r = new SimpleResolver(InetAddress.getByName("127.0.0.1"));
        r.setPort(port);
        r.setTCP(tcp);
        r.setEDNS(-1);
        r.setTSIGKey(key);
        r.setTimeout(Duration.ofSeconds(5));
        return r.send(u);
    }

    long serial() throws IOException {
        return ((SOARecord) client.udp("dyn.meshdns.", Type.SOA).getSection(Section.ANSWER).get(0)).getSerial();
    }

    List<String> answers(String name, int type) throws IOException {
        return client.udp(name, type).getSection(Section.ANSWER).stream().map(Record::rdataToString).toList();
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void dnsjavaSignedUpdateIsServedAtOnceAndBumpsTheSerial(boolean tcp) throws Exception {
        String name = fresh("web");
        long before = serial();
        Update u = new Update(ZONE);
        u.add(Name.fromString(name), Type.A, 60, "192.0.2.7");
        u.add(Name.fromString(name), Type.TXT, 60, "\"hello world\"");
        Message response = signed(u, tcp, KEY);
        assertEquals(Rcode.NOERROR, response.getRcode());
        assertTrue(response.isVerified(), "the response carries a valid TSIG");
        assertEquals(List.of("192.0.2.7"), answers(name, Type.A));
        assertEquals(List.of("\"hello world\""), answers(name, Type.TXT));
        assertEquals(before + 1, serial(), "one UPDATE, one serial step");
    }

    @Test
    void nsupdateOverUdpAndTcpAddsAndDeletes() throws Exception {
        String name = fresh("ns");
        String script = "server 127.0.0.1 " + port + "\nzone dyn.meshdns\n"
                + "update add " + name + " 120 A 192.0.2.20\n"
                + "update add " + name + " 120 SRV 0 10 5002 " + name + "\n"
                + "send\n";
        Tools.Result r = Tools.run(List.of("nsupdate", "-y", "hmac-sha256:test-key:" + SECRET), script);
        assertEquals(0, r.exit(), r.output());
        Dig.Result srv = Dig.dig("127.0.0.1", port, name, "SRV");
        assertEquals("NOERROR", srv.status());
        assertEquals(List.of("0 10 5002 " + name), srv.answerData());
        assertEquals(List.of("192.0.2.20"), Dig.dig("127.0.0.1", port, name, "A").answerData());

        Tools.Result del = Tools.run(List.of("nsupdate", "-v", "-y", "hmac-sha256:test-key:" + SECRET),
                "server 127.0.0.1 " + port + "\nzone dyn.meshdns\nupdate delete " + name + " A\nsend\n");
        assertEquals(0, del.exit(), del.output());
        assertEquals("NOERROR", Dig.dig("127.0.0.1", port, name, "A").status(), "the name still has an SRV: NODATA");
        assertTrue(answers(name, Type.A).isEmpty());
        assertEquals(1, answers(name, Type.SRV).size());
    }

    @Test
    void knsupdateAddsAndDeletesOneRecord() throws Exception {
        String name = fresh("kn");
        String script = "server 127.0.0.1 " + port + "\nzone dyn.meshdns.\n"
                + "update add " + name + " 60 AAAA 2001:db8::1\n"
                + "update add " + name + " 60 AAAA 2001:db8::2\n"
                + "send\n";
        Tools.Result r = Tools.run(List.of("knsupdate", "-y", "hmac-sha256:test-key:" + SECRET), script);
        assertEquals(0, r.exit(), r.output());
        assertEquals(2, answers(name, Type.AAAA).size());
        Tools.Result del = Tools.run(List.of("knsupdate", "-y", "hmac-sha256:test-key:" + SECRET),
                "server 127.0.0.1 " + port + "\nzone dyn.meshdns.\nupdate delete " + name + " 0 AAAA 2001:db8::1\nsend\n");
        assertEquals(0, del.exit(), del.output());
        assertEquals(List.of("2001:db8:0:0:0:0:0:2"), answers(name, Type.AAAA));
    }

    @Test
    void unsignedUpdateIsRefusedOverUdpAndByNsupdate() throws Exception {
        String name = fresh("unsigned");
        Update u = new Update(ZONE);
        u.add(Name.fromString(name), Type.A, 60, "192.0.2.1");
        assertEquals(Rcode.REFUSED, send(u, false).getRcode());
        Tools.Result r = Tools.run(List.of("nsupdate"),
                "server 127.0.0.1 " + port + "\nzone dyn.meshdns\nupdate add " + name + " 60 A 192.0.2.1\nsend\n");
        assertNotEquals(0, r.exit());
        assertTrue(r.output().contains("REFUSED"), r.output());
        assertEquals(Rcode.NXDOMAIN, client.udp(name, Type.A).getRcode());
    }

    @Test
    void wrongSecretIsNotauthBadsigAndUnknownKeyIsBadkey() throws Exception {
        String name = fresh("badsig");
        Update u = new Update(ZONE);
        u.add(Name.fromString(name), Type.A, 60, "192.0.2.1");
        TSIG wrongSecret = new TSIG(TSIG.HMAC_SHA256, "test-key.", "d3Jvbmctc2VjcmV0LXdyb25nLXNlY3JldC0wMTIzNDU=");
        Message badSig = rawSigned(u, wrongSecret);
        assertEquals(Rcode.NOTAUTH, badSig.getRcode());
        TSIGRecord t = badSig.getTSIG();
        assertNotNull(t, "the error is carried in a TSIG RR");
        assertEquals(Rcode.BADSIG, t.getError());

        TSIG unknown = new TSIG(TSIG.HMAC_SHA256, "nobody.", SECRET);
        Message badKey = rawSigned(u, unknown);
        assertEquals(Rcode.NOTAUTH, badKey.getRcode());
        assertEquals(Rcode.BADKEY, badKey.getTSIG().getError());

        Tools.Result r = Tools.run(List.of("nsupdate", "-y", "hmac-sha256:test-key:d3Jvbmctc2VjcmV0LXdyb25nLXNlY3JldC0wMTIzNDU="),
                "server 127.0.0.1 " + port + "\nzone dyn.meshdns\nupdate add " + name + " 60 A 192.0.2.1\nsend\n");
        assertNotEquals(0, r.exit(), r.output());
        assertEquals(Rcode.NXDOMAIN, client.udp(name, Type.A).getRcode(), "nothing applied");
    }

    /** Signs and sends without dnsjava's resolver verifying the reply (which would reject the error TSIG). */
    private Message rawSigned(Update u, TSIG key) throws IOException {
        Message copy = u.clone();
        key.apply(copy, null);
        byte[] wire = copy.toWire();
        try (java.net.DatagramSocket socket = new java.net.DatagramSocket()) {
            socket.setSoTimeout(5000);
            socket.send(new java.net.DatagramPacket(wire, wire.length, InetAddress.getByName("127.0.0.1"), port));
            byte[] buf = new byte[4096];
            java.net.DatagramPacket reply = new java.net.DatagramPacket(buf, buf.length);
            socket.receive(reply);
            return new Message(java.util.Arrays.copyOf(buf, reply.getLength()));
        }
    }

    @Test
    void zoneThatIsNotDynamicIsNotauth() throws Exception {
        Update u = new Update(Name.fromString("test.meshdns."));
        u.add(Name.fromString("x.test.meshdns."), Type.A, 60, "192.0.2.1");
        assertEquals(Rcode.NOTAUTH, signed(u, false, KEY).getRcode());
    }

    @Test
    void prerequisitesGiveTheirRcodesAndFailureAppliesNothing() throws Exception {
        Name name = Name.fromString(fresh("pre"));
        Update create = new Update(ZONE);
        create.absent(name); // NXDOMAIN prerequisite holds
        create.add(name, Type.A, 60, "192.0.2.1");
        assertEquals(Rcode.NOERROR, signed(create, false, KEY).getRcode());

        Update again = new Update(ZONE);
        again.absent(name);
        again.add(name, Type.A, 60, "192.0.2.2");
        assertEquals(Rcode.YXDOMAIN, signed(again, false, KEY).getRcode());

        Update rrsetAbsent = new Update(ZONE);
        rrsetAbsent.absent(name, Type.A);
        rrsetAbsent.add(name, Type.A, 60, "192.0.2.3");
        assertEquals(Rcode.YXRRSET, signed(rrsetAbsent, false, KEY).getRcode());

        Update rrsetPresent = new Update(ZONE);
        rrsetPresent.present(name, Type.TXT);
        rrsetPresent.add(name, Type.A, 60, "192.0.2.4");
        assertEquals(Rcode.NXRRSET, signed(rrsetPresent, false, KEY).getRcode());

        Update namePresent = new Update(ZONE);
        namePresent.present(Name.fromString(fresh("missing")));
        namePresent.add(name, Type.A, 60, "192.0.2.5");
        assertEquals(Rcode.NXDOMAIN, signed(namePresent, false, KEY).getRcode());

        Update valueWrong = new Update(ZONE);
        valueWrong.present(name, Type.A, "192.0.2.99");
        valueWrong.add(name, Type.A, 60, "192.0.2.6");
        assertEquals(Rcode.NXRRSET, signed(valueWrong, false, KEY).getRcode());

        Update valueRight = new Update(ZONE);
        valueRight.present(name, Type.A, "192.0.2.1");
        valueRight.add(name, Type.A, 60, "192.0.2.7");
        assertEquals(Rcode.NOERROR, signed(valueRight, true, KEY).getRcode());

        assertEquals(List.of("192.0.2.1", "192.0.2.7"), answers(name.toString(), Type.A).stream().sorted().toList(),
                "only the updates whose prerequisites held were applied");
    }

    @Test
    void oneBadRecordRejectsTheWholeMessage() throws Exception {
        Name name = Name.fromString(fresh("atomic"));
        long before = serial();
        Update u = new Update(ZONE);
        u.add(name, Type.A, 60, "192.0.2.1");
        u.add(Name.fromString("outside.example."), Type.A, 60, "192.0.2.2");
        assertEquals(Rcode.NOTZONE, signed(u, false, KEY).getRcode());
        assertEquals(Rcode.NXDOMAIN, client.udp(name.toString(), Type.A).getRcode());
        assertEquals(before, serial());
    }

    @Test
    void apexSoaAndNsAreProtectedAndCnameExcludesOtherData() throws Exception {
        Update wipeApex = new Update(ZONE);
        wipeApex.delete(ZONE); // delete all RRsets at the apex: SOA and NS must stay
        wipeApex.delete(ZONE, Type.NS);
        assertEquals(Rcode.NOERROR, signed(wipeApex, false, KEY).getRcode());
        assertEquals(1, answers("dyn.meshdns.", Type.SOA).size());
        assertEquals(List.of("ns.dyn.meshdns."), answers("dyn.meshdns.", Type.NS));

        Update lastNs = new Update(ZONE);
        lastNs.delete(ZONE, Type.NS, "ns.dyn.meshdns.");
        assertEquals(Rcode.NOERROR, signed(lastNs, false, KEY).getRcode());
        assertEquals(List.of("ns.dyn.meshdns."), answers("dyn.meshdns.", Type.NS), "the last apex NS is never deleted");

        Name name = Name.fromString(fresh("alias"));
        Update cname = new Update(ZONE);
        cname.add(name, Type.CNAME, 60, "target.dyn.meshdns.");
        cname.add(name, Type.A, 60, "192.0.2.1"); // ignored: CNAME and other data
        assertEquals(Rcode.NOERROR, signed(cname, false, KEY).getRcode());
        Message a = client.udp(name.toString(), Type.CNAME);
        assertEquals(List.of("target.dyn.meshdns."), a.getSection(Section.ANSWER).stream().map(Record::rdataToString).toList());
    }

    @Test
    void axfrWithTsigReadsEverythingThroughDnsjavaAndKdig() throws Exception {
        String name = fresh("xfr");
        Update u = new Update(ZONE);
        u.add(Name.fromString(name), Type.SRV, 60, "0 10 5002 " + name);
        u.add(Name.fromString(name), Type.TXT, 60, "\"heritage=external-dns,external-dns/owner=test\"");
        assertEquals(Rcode.NOERROR, signed(u, true, KEY).getRcode());

        ZoneTransferIn xfr = ZoneTransferIn.newAXFR(ZONE, "127.0.0.1", port, KEY);
        xfr.setTimeout(Duration.ofSeconds(10));
        xfr.run();
        List<Record> records = xfr.getAXFR();
        assertEquals(Type.SOA, records.get(0).getType());
        assertEquals(Type.SOA, records.get(records.size() - 1).getType());
        assertTrue(records.stream().anyMatch(r -> r.getType() == Type.SRV && r.getName().toString().equals(name)));
        assertTrue(records.stream().anyMatch(r -> r.getType() == Type.TXT && r.getName().toString().equals(name)));

        Tools.Result kdig = Tools.run(List.of("kdig", "@127.0.0.1", "-p", String.valueOf(port),
                "-y", "hmac-sha256:test-key:" + SECRET, "dyn.meshdns.", "AXFR"), "");
        assertEquals(0, kdig.exit(), kdig.output());
        assertTrue(kdig.output().contains("5002 " + name), kdig.output());
        assertTrue(!kdig.output().contains("TSIG: ") || !kdig.output().toLowerCase().contains("failed"), kdig.output());
    }

    @Test
    void largeZoneTransfersInSeveralSignedMessages() throws Exception {
        Name zone = Name.fromString("dyn2.meshdns.");
        String run = Long.toString(System.nanoTime() % 1_000_000_000L, 36);
        Update u = new Update(zone);
        for (int i = 0; i < 400; i++) {
            u.add(Name.fromString("host" + i + "-" + run + ".dyn2.meshdns."), Type.TXT, 60,
                    "\"" + "x".repeat(100) + i + "\"");
        }
        assertEquals(Rcode.NOERROR, signed(u, true, KEY).getRcode());

        ZoneTransferIn xfr = ZoneTransferIn.newAXFR(zone, "127.0.0.1", port, KEY);
        xfr.setTimeout(Duration.ofSeconds(10));
        xfr.run();
        long mine = xfr.getAXFR().stream().filter(r -> r.getName().toString().endsWith("-" + run + ".dyn2.meshdns.")).count();
        assertEquals(400, mine);

        Tools.Result kdig = Tools.run(List.of("kdig", "@127.0.0.1", "-p", String.valueOf(port),
                "-y", "hmac-sha256:test-key:" + SECRET, "+multi", "dyn2.meshdns.", "AXFR"), "");
        assertEquals(0, kdig.exit(), kdig.output());
        long kdigMine = kdig.output().lines().filter(l -> l.contains("-" + run + ".dyn2.meshdns.")).count();
        assertEquals(400, kdigMine, kdig.output().lines().filter(l -> l.startsWith(";;")).toList().toString());
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("Received \\d+ B \\((\\d+) messages").matcher(kdig.output());
        assertTrue(m.find(), kdig.output());
        assertTrue(Integer.parseInt(m.group(1)) > 2, "split into several messages: " + m.group());
    }

    @Test
    void unsignedAxfrIsRefusedAndAxfrOverUdpIsFormerr() throws Exception {
        ZoneTransferIn xfr = ZoneTransferIn.newAXFR(ZONE, "127.0.0.1", port, null);
        xfr.setTimeout(Duration.ofSeconds(5));
        Exception e = assertThrows(Exception.class, xfr::run); // dnsjava reports the RCODE as a WireParseException
        assertTrue(e.getMessage().contains("REFUSED"), e.getMessage());
        // SimpleResolver always moves AXFR to TCP, so the UDP query goes out raw.
        byte[] reply = client.rawUdp(DnsClient.query("dyn.meshdns.", Type.AXFR, org.xbill.DNS.DClass.IN).toWire(), Duration.ofSeconds(5));
        assertEquals(Rcode.FORMERR, new Message(reply).getRcode());
    }
}
