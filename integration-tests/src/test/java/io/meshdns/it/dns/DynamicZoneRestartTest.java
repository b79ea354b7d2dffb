package io.meshdns.it.dns;

import io.meshdns.testsupport.LogLines;
import io.meshdns.testsupport.QuarkusJarProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.NULLRecord;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.TSIG;
import org.xbill.DNS.TSIGRecord;
import org.xbill.DNS.Type;
import org.xbill.DNS.Update;

import java.io.ByteArrayOutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The packaged dns-service as a node runs it, killed (SIGKILL) and started again on the same journal:
 * every UPDATE it acknowledged with NOERROR is served after the restart, including the ones that came
 * after records a lax server would have stored but could not replay (a TTL above 2^31-1, a NULL record
 * and an unknown type with empty RDATA). The TTL one must be refused (FORMERR) instead of stored.
 */
class DynamicZoneRestartTest {
    static final String SECRET = "aXQtam91cm5hbC1zZWNyZXQtMDEyMzQ1Njc4OWFiY2RlZg==";
    static final Name ZONE = Name.fromConstantString("journal.it.");
    static final long MARKER_TTL = 0x7ABCDEF1L; // a legal TTL whose four bytes the test patches to 0xFFFFFFFF

    @TempDir
    Path journal;

    QuarkusJarProcess dns;

    @AfterEach
    void stop() {
        if (dns != null) {
            dns.close();
        }
    }

    QuarkusJarProcess startDns(int port) throws Exception {
        QuarkusJarProcess p = QuarkusJarProcess.module("dns-service").jvmOptions(QuarkusJarProcess.FAST_START_JVM)
                .properties(Map.of(
                        "meshdns.dns.port", String.valueOf(port),
                        "meshdns.dns.dynamic-zones", ZONE.toString(true),
                        "meshdns.dns.tsig-keys", "writer:hmac-sha256:" + SECRET,
                        "meshdns.dns.journal-dir", journal.toString(),
                        "quarkus.http.port", "0"))
                .start();
        p.awaitLine(LogLines.DNS_SERVICE_PORT, Duration.ofSeconds(60));
        return p;
    }

    record Sent(String what, int rcode, Name name, int type) {
    }

    @Test
    void everyAcknowledgedUpdateSurvivesARestartAndUnreplayableOnesAreRefused() throws Exception {
        dns = startDns(0);
        int port = dns.awaitPort(LogLines.DNS_SERVICE_PORT, Duration.ofSeconds(5));
        TSIG key = new TSIG(TSIG.HMAC_SHA256, "writer.", SECRET);
        List<Sent> sent = new ArrayList<>();

        sent.add(addA(port, key, "a1", "192.0.2.1"));
        sent.add(new Sent("TTL 4294967295", sendRaw(port, key, hugeTtlUpdate()), name("huge"), Type.A));
        sent.add(addA(port, key, "a2", "192.0.2.2"));
        Update nullEmpty = new Update(ZONE);
        nullEmpty.add(Record.newRecord(name("null-empty"), Type.NULL, DClass.IN, 60, new byte[0]));
        sent.add(new Sent("NULL, empty RDATA", send(port, key, nullEmpty), name("null-empty"), Type.NULL));
        Update nullData = new Update(ZONE);
        nullData.add(new NULLRecord(name("null-data"), DClass.IN, 60, new byte[] {1, 2, 3}));
        sent.add(new Sent("NULL with RDATA", send(port, key, nullData), name("null-data"), Type.NULL));
        sent.add(addA(port, key, "a3", "192.0.2.3"));
        Update unknown = new Update(ZONE);
        unknown.add(Record.newRecord(name("unknown"), 65281, DClass.IN, 60, new byte[0]));
        sent.add(new Sent("TYPE65281 \\# 0", send(port, key, unknown), name("unknown"), 65281));
        sent.add(addA(port, key, "a4", "192.0.2.4"));

        assertEquals(Rcode.FORMERR, sent.get(1).rcode(), "a TTL above 2^31-1 is refused, not stored: " + sent);
        List<Sent> acknowledged = sent.stream().filter(s -> s.rcode() == Rcode.NOERROR).toList();
        assertTrue(acknowledged.size() >= 4, "the plain A updates are acknowledged: " + sent);
        for (Sent s : acknowledged) {
            assertPresent(port, s, "before the restart");
        }

        for (int restart = 1; restart <= 2; restart++) {
            // A second restart proves the start-time compaction kept everything the first replay found.
            dns.kill();
            dns = startDns(port);
            for (Sent s : acknowledged) {
                assertPresent(port, s, "after restart " + restart + "\n" + dns.output());
            }
            assertFalse(dns.output().contains("damaged"), dns.output());
        }
    }

    /**
     * Fault: dns-service SIGKILLed in the middle of heavy UPDATE traffic (4 writers over UDP, each
     * UPDATE one new A record). Every UPDATE answered NOERROR before the kill is served after the
     * restart; the ones in flight may or may not have landed, but nothing acknowledged is lost.
     */
    @Test
    void aSigkillDuringHeavyUpdateTrafficLosesNoAcknowledgedUpdate() throws Exception {
        dns = startDns(0);
        int port = dns.awaitPort(LogLines.DNS_SERVICE_PORT, Duration.ofSeconds(5));
        TSIG key = new TSIG(TSIG.HMAC_SHA256, "writer.", SECRET);
        List<String> acknowledged = java.util.Collections.synchronizedList(new ArrayList<>());
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            int writer = w;
            Thread t = new Thread(() -> {
                for (int i = 0; i < 5000 && !stop.get(); i++) {
                    String label = "w" + writer + "-" + i;
                    try {
                        Update u = new Update(ZONE);
                        u.add(name(label), Type.A, 60, "198.51.100." + (i % 250 + 1));
                        SimpleResolver r = resolver(port);
                        r.setTSIGKey(key);
                        r.setTimeout(Duration.ofSeconds(1));
                        if (r.send(u).getRcode() == Rcode.NOERROR) {
                            acknowledged.add(label);
                        }
                    } catch (Exception e) {
                        // the server died under us: this one was not acknowledged
                    }
                }
            }, "update-writer-" + w);
            t.setDaemon(true);
            t.start();
            writers.add(t);
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (acknowledged.size() < 300 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        dns.kill();
        stop.set(true);
        for (Thread t : writers) {
            t.join(5000);
        }
        List<String> acked = List.copyOf(acknowledged);
        assertTrue(acked.size() >= 100, "enough traffic before the kill: " + acked.size());
        dns = startDns(port);
        List<String> missing = new ArrayList<>();
        for (String label : acked) {
            Message answer = resolver(port).send(Message.newQuery(Record.newRecord(name(label), Type.A, DClass.IN)));
            if (answer.getRcode() != Rcode.NOERROR || answer.getSection(Section.ANSWER).isEmpty()) {
                missing.add(label);
            }
        }
        System.out.println("SIGKILL under UPDATE load: " + acked.size() + " acknowledged before the kill, " + missing.size() + " missing after restart");
        assertEquals(List.of(), missing, "acknowledged before the SIGKILL, gone after the restart\n" + dns.output());
    }

    Sent addA(int port, TSIG key, String label, String address) throws Exception {
        Update u = new Update(ZONE);
        u.add(name(label), Type.A, 60, address);
        return new Sent("A " + label, send(port, key, u), name(label), Type.A);
    }

    static Name name(String label) {
        return Name.fromConstantString(label + "." + ZONE);
    }

    static int send(int port, TSIG key, Update update) throws Exception {
        SimpleResolver r = resolver(port);
        r.setTSIGKey(key);
        return r.send(update).getRcode();
    }

    static SimpleResolver resolver(int port) throws Exception {
        SimpleResolver r = new SimpleResolver(InetAddress.getLoopbackAddress());
        r.setPort(port);
        r.setTimeout(Duration.ofSeconds(5));
        return r;
    }

    /** An UPDATE adding an A record with TTL 0xFFFFFFFF: dnsjava will not build one, so the wire is patched, then signed. */
    static byte[] hugeTtlUpdate() throws Exception {
        Update u = new Update(ZONE);
        u.add(name("huge"), Type.A, MARKER_TTL, "192.0.2.99");
        byte[] wire = u.toWire();
        byte[] marker = {0x7A, (byte) 0xBC, (byte) 0xDE, (byte) 0xF1};
        for (int i = 0; i + 4 <= wire.length; i++) {
            if (Arrays.equals(Arrays.copyOfRange(wire, i, i + 4), marker)) {
                Arrays.fill(wire, i, i + 4, (byte) 0xFF);
                return wire;
            }
        }
        throw new IllegalStateException("TTL not found in the UPDATE's wire form");
    }

    /** Signs {@code unsigned} with TSIG (appended as the last additional record) and sends it over UDP. */
    static int sendRaw(int port, TSIG key, byte[] unsigned) throws Exception {
        Message parsed = new Message(unsigned);
        TSIGRecord tsig = key.generate(parsed, unsigned, Rcode.NOERROR, null);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(unsigned);
        out.write(tsig.toWire(Section.ADDITIONAL));
        byte[] signed = out.toByteArray();
        int arcount = ((signed[10] & 0xFF) << 8 | (signed[11] & 0xFF)) + 1;
        signed[10] = (byte) (arcount >> 8);
        signed[11] = (byte) arcount;
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            socket.setSoTimeout(5000);
            socket.send(new DatagramPacket(signed, signed.length, InetAddress.getLoopbackAddress(), port));
            DatagramPacket reply = new DatagramPacket(new byte[4096], 4096);
            socket.receive(reply);
            Message response = new Message(Arrays.copyOf(reply.getData(), reply.getLength()));
            assertTrue(response.getHeader().getFlag(Flags.QR));
            return response.getRcode();
        }
    }

    static void assertPresent(int port, Sent s, String when) throws Exception {
        Message q = Message.newQuery(Record.newRecord(s.name(), s.type(), DClass.IN));
        Message answer = resolver(port).send(q);
        assertEquals(Rcode.NOERROR, answer.getRcode(), s + " " + when);
        List<Record> rrs = answer.getSection(Section.ANSWER);
        assertTrue(rrs.stream().anyMatch(r -> r.getType() == s.type() && r.getName().equals(s.name())),
                "acknowledged " + s + " is served " + when + ": " + answer);
        assertTrue(rrs.stream().allMatch(r -> r.getTTL() <= 0x7FFFFFFFL), "no TTL above 2^31-1: " + answer);
    }
}
