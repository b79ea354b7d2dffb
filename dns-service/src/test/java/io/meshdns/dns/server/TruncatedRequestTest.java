package io.meshdns.dns.server;

import io.meshdns.dns.DnsClient;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.TSIG;
import org.xbill.DNS.Type;
import org.xbill.DNS.Update;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No request escapes its reply: a signed message with TC=1 cut short (it parses, since a parser forgives a
 * truncated message, but claims more additional records than it carries) is answered FORMERR over UDP and TCP, for
 * UPDATE and for AXFR, and a burst of them on one TCP connection leaves nothing counted in flight.
 */
@QuarkusTest
class TruncatedRequestTest {
    static final TSIG KEY = new TSIG(TSIG.HMAC_SHA256, "test-key.", "bWVzaGRucy10ZXN0LXNlY3JldC0wMTIzNDU2Nzg5YWI=");
    static final Name ZONE = Name.fromConstantString("dyn.meshdns.");
    private static final Duration TIMEOUT = Duration.ofSeconds(3);

    @Inject
    DnsClient client;

    /** {@code wire} with TC set and its last 20 bytes (inside the TSIG record) cut off. */
    static byte[] cutShort(byte[] wire) {
        byte[] cut = Arrays.copyOf(wire, wire.length - 20);
        cut[2] |= 0x02; // TC
        return cut;
    }

    static byte[] truncatedUpdate(int id) throws IOException {
        Update u = new Update(ZONE);
        u.getHeader().setID(id);
        u.add(Name.fromString("cut.dyn.meshdns."), Type.A, 60, "192.0.2.99");
        u.setTSIG(KEY, Rcode.NOERROR, null);
        return cutShort(u.toWire(65535));
    }

    static byte[] truncatedAxfr(int id) {
        Message q = Message.newQuery(Record.newRecord(ZONE, Type.AXFR, DClass.IN));
        q.getHeader().setID(id);
        q.setTSIG(KEY, Rcode.NOERROR, null);
        return cutShort(q.toWire(65535));
    }

    private static void assertFormerr(byte[] reply, int id) throws IOException {
        assertNotNull(reply, "an answer");
        Message m = new Message(reply);
        assertEquals(id, m.getHeader().getID());
        assertEquals(Rcode.FORMERR, m.getRcode(), m.toString());
    }

    @Test
    void aTruncatedSignedUpdateOverUdpIsAnsweredFormerr() throws Exception {
        assertFormerr(client.rawUdp(truncatedUpdate(0x0a01), TIMEOUT), 0x0a01);
    }

    @Test
    void aTruncatedSignedUpdateOverTcpIsAnsweredFormerr() throws Exception {
        List<byte[]> replies = client.rawTcp(List.of(truncatedUpdate(0x0a02)), 1, TIMEOUT);
        assertEquals(1, replies.size(), "an answer over TCP");
        assertFormerr(replies.get(0), 0x0a02);
    }

    @Test
    void aTruncatedSignedAxfrOverTcpIsAnsweredFormerr() throws Exception {
        List<byte[]> replies = client.rawTcp(List.of(truncatedAxfr(0x0a03)), 1, TIMEOUT);
        assertEquals(1, replies.size(), "an answer over TCP");
        assertFormerr(replies.get(0), 0x0a03);
    }

    @Test
    void aTruncatedSignedAxfrOverUdpIsAnsweredFormerr() throws Exception {
        assertFormerr(client.rawUdp(truncatedAxfr(0x0a04), TIMEOUT), 0x0a04);
    }

    /**
     * 60 truncated UPDATEs and AXFRs, then 10 responses (QR=1: dropped unanswered), then one plain query, all on one
     * connection: 61 answers, in order of arrival is not required, and the in-flight gauge back at zero.
     */
    @Test
    void aBurstOnOneTcpConnectionIsAnsweredAndLeavesNothingInFlight() throws Exception {
        double malformedBefore = value(scrape(), "meshdns_dns_malformed_requests_total");
        List<byte[]> frames = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            frames.add(i % 2 == 0 ? truncatedUpdate(0x1000 + i) : truncatedAxfr(0x1000 + i));
        }
        for (int i = 0; i < 10; i++) {
            byte[] response = DnsClient.query("dyn.meshdns.", Type.SOA, DClass.IN).toWire();
            response[2] |= (byte) 0x80;
            frames.add(response);
        }
        Message soa = DnsClient.query("dyn.meshdns.", Type.SOA, DClass.IN);
        soa.getHeader().setID(0x2000);
        frames.add(soa.toWire());
        List<byte[]> replies = client.rawTcp(frames, 61, TIMEOUT);
        assertEquals(61, replies.size(), "every request but the responses answered");
        int formerr = 0;
        boolean soaAnswered = false;
        for (byte[] reply : replies) {
            Message m = new Message(reply);
            if (m.getHeader().getID() == 0x2000) {
                soaAnswered = m.getRcode() == Rcode.NOERROR;
            } else if (m.getRcode() == Rcode.FORMERR) {
                formerr++;
            }
        }
        assertEquals(60, formerr);
        assertTrue(soaAnswered, "the connection still answers");

        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        String metrics = scrape();
        while (value(metrics, "meshdns_dns_tcp_requests_in_flight") != 0 && System.nanoTime() < deadline) {
            Thread.sleep(50);
            metrics = scrape();
        }
        assertTrue(metrics.contains("\nmeshdns_dns_tcp_requests_in_flight "), "the in-flight gauge is exported");
        assertEquals(0, value(metrics, "meshdns_dns_tcp_requests_in_flight"), "every request's slot given back");
        assertTrue(value(metrics, "meshdns_dns_malformed_requests_total") >= malformedBefore + 70,
                "each truncated message and each response counted once as malformed");
    }

    private static String scrape() {
        return given().get("/q/metrics").then().statusCode(200).extract().asString();
    }

    private static double value(String exposition, String series) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(exposition);
        return m.find() ? Double.parseDouble(m.group(1)) : -1;
    }
}
