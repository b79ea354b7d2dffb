package io.meshdns.dns;

import io.meshdns.dns.server.DnsServer;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Malformed packets, TCP framing (pipelining, partial frames, idle timeout), the client ACL, zone
 * reload, metrics and health: everything over real sockets against the booted app.
 */
@QuarkusTest
class TransportRobustnessTest {
    private static final Duration NO_REPLY_WAIT = Duration.ofMillis(700);

    @Inject
    DnsServer server;

    @Inject
    DnsClient client;

    // ---- malformed packets: FORMERR (header only, never bigger than the query) or dropped ----

    static Stream<Arguments> malformedPackets() {
        return Stream.of(
                Arguments.of("truncated header", new byte[] {0x12, 0x34, 0x01, 0x00, 0x00}, false),
                Arguments.of("compression pointer to itself", packet(1, new byte[] {(byte) 0xC0, 0x0C, 0, 1, 0, 1}), true),
                Arguments.of("compression pointer loop", packet(1, new byte[] {(byte) 0xC0, 0x0E, (byte) 0xC0, 0x0C, 0, 1, 0, 1}), true),
                Arguments.of("label over 63 bytes", packet(1, concat(new byte[] {64}, repeat((byte) 'a', 64), new byte[] {0, 0, 1, 0, 1})), true),
                Arguments.of("name over 255 bytes", packet(1, longName()), true),
                Arguments.of("qdcount 0", packet(0, new byte[0]), true),
                Arguments.of("qdcount 2", packet(2, concat(question("a.test.meshdns"), question("b.test.meshdns"))), true),
                Arguments.of("qdcount 2 but one question", packet(2, question("a.test.meshdns")), true),
                Arguments.of("a response (QR=1) is never answered", response(question("registry.test.meshdns")), false),
                // RFC 6891 section 6.1.1: one OPT at most, only in the additional section, owned by the root.
                Arguments.of("two OPT records", counts(packet(1, concat(question("registry.test.meshdns"), opt(0), opt(0))), 0, 0, 2), true),
                Arguments.of("OPT in the answer section", counts(packet(1, concat(question("registry.test.meshdns"), opt(0))), 1, 0, 0), true),
                Arguments.of("OPT in the authority section", counts(packet(1, concat(question("registry.test.meshdns"), opt(0))), 0, 1, 0), true),
                Arguments.of("OPT with a non-root owner", counts(packet(1, concat(question("registry.test.meshdns"), optOwnedBy("x"))), 0, 0, 1), true));
    }

    /** An OPT record (payload 1232, no options) with the root as owner. */
    private static byte[] opt(int flags) {
        return new byte[] {0, 0, 41, 0x04, (byte) 0xD0, 0, 0, (byte) (flags >> 8), (byte) flags, 0, 0};
    }

    private static byte[] optOwnedBy(String label) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(label.length());
        out.writeBytes(label.getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(opt(0));
        return out.toByteArray();
    }

    private static byte[] counts(byte[] packet, int an, int ns, int ar) {
        packet[7] = (byte) an;
        packet[9] = (byte) ns;
        packet[11] = (byte) ar;
        return packet;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedPackets")
    void malformedPacketsGetFormerrOrAreDroppedAndTheServerKeepsAnswering(String what, byte[] packet, boolean formerr)
            throws IOException {
        byte[] reply = client.rawUdp(packet, formerr ? Duration.ofSeconds(10) : NO_REPLY_WAIT);
        if (formerr) {
            assertNotNull(reply, what + ": expected FORMERR");
            assertEquals(Rcode.FORMERR, reply[3] & 0x0f, what);
            assertTrue((reply[2] & 0x80) != 0, "QR set");
            assertEquals(packet[0], reply[0], "ID echoed");
            assertEquals(packet[1], reply[1], "ID echoed");
            assertTrue(reply.length <= packet.length, what + ": a FORMERR is never larger than the query (" + reply.length + ")");
        } else {
            assertNull(reply, what + ": expected no reply");
        }
        assertEquals(Rcode.NOERROR, client.udp("registry.test.meshdns.", Type.A).getRcode(), "still answering after " + what);
    }

    // ---- TCP (RFC 7766) ----

    @Test
    void tcpAnswersPipelinedQueries() throws IOException {
        List<Message> queries = List.of(
                DnsClient.query("registry.test.meshdns.", Type.A, DClass.IN),
                DnsClient.query("nope.test.meshdns.", Type.A, DClass.IN),
                DnsClient.query("registry.test.meshdns.", Type.AAAA, DClass.IN),
                DnsClient.query("big.test.meshdns.", Type.TXT, DClass.IN));
        Set<Integer> asked = new HashSet<>();
        queries.forEach(q -> asked.add(q.getHeader().getID()));
        List<Message> replies = client.tcpPipelined(queries);
        Set<Integer> answered = new HashSet<>();
        for (Message reply : replies) {
            answered.add(reply.getHeader().getID());
            Message query = queries.stream().filter(q -> q.getHeader().getID() == reply.getHeader().getID()).findFirst().orElseThrow();
            assertEquals(query.getQuestion(), reply.getQuestion());
        }
        assertEquals(asked, answered);
    }

    @Test
    void tcpReassemblesFramesSplitAcrossSegments() throws IOException {
        byte[] q1 = DnsClient.query("registry.test.meshdns.", Type.A, DClass.IN).toWire();
        byte[] q2 = DnsClient.query("www.test.meshdns.", Type.A, DClass.IN).toWire();
        byte[] stream = concat(new byte[] {0, (byte) q1.length}, q1, new byte[] {0, (byte) q2.length}, q2);
        try (Socket socket = new Socket("127.0.0.1", server.boundPort())) {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            // 1 byte of length, then the rest of frame 1 in two pieces, frame 2 split inside its length
            int[] cuts = {1, 10, q1.length + 3, stream.length};
            int from = 0;
            for (int cut : cuts) {
                out.write(stream, from, cut - from);
                out.flush();
                from = cut;
            }
            DataInputStream in = new DataInputStream(socket.getInputStream());
            for (int i = 0; i < 2; i++) {
                byte[] reply = new byte[in.readUnsignedShort()];
                in.readFully(reply);
                assertEquals(Rcode.NOERROR, new Message(reply).getRcode());
            }
        }
    }

    @Test
    void tcpClosesIdleConnections() throws IOException {
        try (Socket socket = new Socket("127.0.0.1", server.boundPort())) {
            socket.setSoTimeout(15_000); // meshdns.dns.tcp.idle-timeout is 2s in the test profile
            long started = System.nanoTime();
            assertEquals(-1, socket.getInputStream().read(), "server closes the idle connection");
            assertTrue(System.nanoTime() - started >= Duration.ofMillis(1500).toNanos(), "not before the idle timeout");
        }
    }

    // ---- ACL: only 127.0.0.1/32 and ::1/128 in the test profile; 127.0.0.2 is loopback but not allowed ----

    @Test
    void clientsOutsideTheAclAreDroppedAndCounted() throws IOException {
        double before = aclDropped("udp");
        byte[] query = DnsClient.query("registry.test.meshdns.", Type.A, DClass.IN).toWire();
        assertNull(client.rawUdpFrom("127.0.0.2", query, NO_REPLY_WAIT), "UDP from a non-allowed client: no reply");
        assertNotNull(client.rawUdpFrom("127.0.0.1", query, Duration.ofSeconds(10)), "allowed client answered");
        await().atMost(Duration.ofSeconds(5)).until(() -> aclDropped("udp") >= before + 1);

        double tcpBefore = aclDropped("tcp");
        try (Socket socket = new Socket()) {
            socket.bind(new InetSocketAddress("127.0.0.2", 0));
            socket.connect(new InetSocketAddress("127.0.0.1", server.boundPort()));
            socket.setSoTimeout(5000);
            try {
                assertEquals(-1, socket.getInputStream().read(), "TCP from a non-allowed client is closed");
            } catch (SocketTimeoutException e) {
                fail("connection from a non-allowed client stayed open");
            } catch (IOException reset) {
                // a reset is a close too
            }
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> aclDropped("tcp") >= tcpBefore + 1);
    }

    private static double aclDropped(String proto) {
        String body = given().get("/q/metrics").then().statusCode(200).extract().asString();
        return metricValue(body, "meshdns_acl_dropped_total{proto=\"" + proto + "\"}");
    }

    static double metricValue(String body, String series) {
        for (String line : body.split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1).trim());
            }
        }
        return 0;
    }

    // ---- reload ----

    @Test
    void editingAZoneFileChangesTheAnswer() throws IOException {
        Path zone = Path.of("target/test-classes/zones/reload.zone");
        String template = """
                $ORIGIN reload.meshdns.
                $TTL 60
                @       IN SOA ns1.reload.meshdns. hostmaster.reload.meshdns. %d 3600 600 86400 60
                @       IN NS  ns1.reload.meshdns.
                svc     IN A   %s
                """;
        Files.writeString(zone, template.formatted(1, "192.0.2.1"), StandardCharsets.UTF_8);
        await().atMost(Duration.ofSeconds(10)).until(() -> answer("svc.reload.meshdns.").equals(List.of("192.0.2.1")));
        double versionBefore = snapshotVersion();

        Files.writeString(zone, template.formatted(2, "192.0.2.222"), StandardCharsets.UTF_8);
        await().atMost(Duration.ofSeconds(10)).until(() -> answer("svc.reload.meshdns.").equals(List.of("192.0.2.222")));
        assertTrue(snapshotVersion() > versionBefore, "snapshot version increases on reload");

        // a broken edit keeps the last good data; the next good edit is picked up again
        Files.writeString(zone, "$ORIGIN reload.meshdns.\nsvc IN A not-an-address\n", StandardCharsets.UTF_8);
        assertEquals(List.of("192.0.2.222"), answer("svc.reload.meshdns."));
        Files.writeString(zone, template.formatted(3, "192.0.2.33"), StandardCharsets.UTF_8);
        await().atMost(Duration.ofSeconds(10)).until(() -> answer("svc.reload.meshdns.").equals(List.of("192.0.2.33")));
    }

    private List<String> answer(String name) throws IOException {
        return client.udp(name, Type.A).getSection(Section.ANSWER).stream().map(r -> r.rdataToString()).toList();
    }

    private static double snapshotVersion() {
        return metricValue(given().get("/q/metrics").then().extract().asString(), "meshdns_snapshot_version");
    }

    // ---- observability ----

    @Test
    void exposesCorednsMetrics() throws IOException {
        client.udp("registry.test.meshdns.", Type.A);
        client.tcp("nope.test.meshdns.", Type.A);
        String server = "server=\"dns://127.0.0.1:" + this.server.boundPort() + "\"";
        given().get("/q/metrics").then().statusCode(200)
                .body(containsString("coredns_dns_requests_total{family=\"1\",proto=\"udp\"," + server + ",type=\"A\",zone=\"test.meshdns.\"}"))
                .body(containsString("coredns_dns_requests_total{family=\"1\",proto=\"tcp\"," + server + ",type=\"A\",zone=\"test.meshdns.\"}"))
                .body(containsString("coredns_dns_responses_total{rcode=\"NXDOMAIN\"," + server + ",zone=\"test.meshdns.\"}"))
                .body(containsString("coredns_dns_request_duration_seconds_bucket{"))
                .body(containsString("meshdns_snapshot_version "));
    }

    @Test
    void healthIsLiveAndReady() {
        given().get("/q/health/live").then().statusCode(200).body(containsString("UP"));
        given().get("/q/health/ready").then().statusCode(200).body(containsString("\"dns\""));
    }

    // ---- packet builders ----

    private static byte[] packet(int qdcount, byte[] body) {
        byte[] header = {0x4d, 0x45, 0x01, 0x00, 0, (byte) qdcount, 0, 0, 0, 0, 0, 0};
        return concat(header, body);
    }

    private static byte[] response(byte[] question) {
        byte[] p = packet(1, question);
        p[2] = (byte) 0x81;
        return p;
    }

    private static byte[] question(String name) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String label : name.split("\\.")) {
            out.write(label.length());
            out.writeBytes(label.getBytes(StandardCharsets.US_ASCII));
        }
        out.write(0);
        out.writeBytes(new byte[] {0, 1, 0, 1});
        return out.toByteArray();
    }

    private static byte[] longName() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < 5; i++) {
            out.write(60);
            out.writeBytes(repeat((byte) 'x', 60));
        }
        out.write(0);
        out.writeBytes(new byte[] {0, 1, 0, 1});
        return out.toByteArray();
    }

    private static byte[] repeat(byte b, int n) {
        byte[] r = new byte[n];
        java.util.Arrays.fill(r, b);
        return r;
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
