package io.meshdns.dns.server;

import io.meshdns.dns.DnsClient;
import io.meshdns.dns.answer.ClientInfo;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Type;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A handler that throws, synchronously or in its stage, over the real listeners: every request is answered
 * SERVFAIL, each counted once in {@code meshdns_dns_request_failures_total{stage="handler"}}, and TCP's in-flight
 * gauge is back at zero after a burst on one connection. The handler serves opcode 15 (unassigned), which no other
 * test sends.
 */
@QuarkusTest
class ThrowingHandlerTest {
    static final int OPCODE = 15;

    /** Throws for even IDs, fails its stage for odd ones. */
    @ApplicationScoped
    public static class Throwing implements RequestHandler {
        @Override
        public int opcode() {
            return OPCODE;
        }

        @Override
        public CompletionStage<Reply> handle(Message request, ClientInfo client) {
            if (request.getHeader().getID() % 2 == 0) {
                throw new IllegalStateException("thrown by the test handler");
            }
            return CompletableFuture.failedFuture(new IllegalStateException("failed by the test handler"));
        }
    }

    @Inject
    DnsClient client;

    static byte[] request(int id) throws Exception {
        Message m = DnsClient.query("dyn.meshdns.", Type.SOA, DClass.IN);
        m.getHeader().setID(id);
        m.getHeader().setOpcode(OPCODE);
        return m.toWire();
    }

    @Test
    void everyThrowIsAnsweredServfailCountedAndLeavesNothingInFlight() throws Exception {
        double before = value(scrape(), "meshdns_dns_request_failures_total{stage=\"handler\"}");
        for (int id : new int[] {2, 3}) {
            byte[] reply = client.rawUdp(request(id), Duration.ofSeconds(3));
            assertNotNull(reply, "UDP: an answer");
            assertEquals(Rcode.SERVFAIL, new Message(reply).getRcode());
        }
        List<byte[]> frames = new ArrayList<>();
        for (int i = 0; i < 40; i++) frames.add(request(0x100 + i));
        List<byte[]> replies = client.rawTcp(frames, 40, Duration.ofSeconds(3));
        assertEquals(40, replies.size(), "TCP: every request answered");
        for (byte[] r : replies) {
            Message m = new Message(r);
            assertEquals(Rcode.SERVFAIL, m.getRcode());
            assertEquals(OPCODE, m.getHeader().getOpcode());
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        String metrics = scrape();
        while (value(metrics, "meshdns_dns_tcp_requests_in_flight") != 0 && System.nanoTime() < deadline) {
            Thread.sleep(50);
            metrics = scrape();
        }
        assertEquals(0, value(metrics, "meshdns_dns_tcp_requests_in_flight"));
        assertEquals(before + 42, value(metrics, "meshdns_dns_request_failures_total{stage=\"handler\"}"), 0.0,
                "one increment per request");
    }

    private static String scrape() {
        return given().get("/q/metrics").then().statusCode(200).extract().asString();
    }

    private static double value(String exposition, String series) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(exposition);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }
}
