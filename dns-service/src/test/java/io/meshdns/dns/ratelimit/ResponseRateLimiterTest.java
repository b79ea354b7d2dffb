package io.meshdns.dns.ratelimit;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ResponseRateLimiterTest {
    private static final long SECOND = 1_000_000_000L;

    private static RrlSettings settings(int rate, int slip, int v4Prefix, int shed) {
        return new RrlSettings(true, rate, slip, v4Prefix, 128, shed, 1024);
    }

    @Test
    void eachPrefixGetsItsRateThenEverySlipthIsTruncatedAndTheRestDropped() throws Exception {
        ResponseRateLimiter l = new ResponseRateLimiter(settings(3, 2, 32, 0));
        InetAddress a = InetAddress.getByName("10.1.0.5");
        InetAddress b = InetAddress.getByName("10.1.0.6");
        long t = 100 * SECOND;
        for (int i = 0; i < 3; i++) assertEquals(ResponseRateLimiter.Verdict.ANSWER, l.admit(a, t));
        assertEquals(ResponseRateLimiter.Verdict.DROP, l.admit(a, t));
        assertEquals(ResponseRateLimiter.Verdict.SLIP, l.admit(a, t));
        assertEquals(ResponseRateLimiter.Verdict.DROP, l.admit(a, t));
        assertEquals(ResponseRateLimiter.Verdict.SLIP, l.admit(a, t));
        assertEquals(ResponseRateLimiter.Verdict.ANSWER, l.admit(b, t), "another /32 has its own budget");
        assertEquals(ResponseRateLimiter.Verdict.ANSWER, l.admit(a, t + SECOND), "the next second starts afresh");
        assertEquals(ResponseRateLimiter.Verdict.ANSWER, l.admit(a.getAddress(), t + SECOND), "bytes and address agree");
    }

    @Test
    void aShorterPrefixCountsNeighboursTogether() throws Exception {
        ResponseRateLimiter l = new ResponseRateLimiter(settings(2, 0, 24, 0));
        long t = 5 * SECOND;
        assertEquals(ResponseRateLimiter.Verdict.ANSWER, l.admit(InetAddress.getByName("10.1.0.5"), t));
        assertEquals(ResponseRateLimiter.Verdict.ANSWER, l.admit(InetAddress.getByName("10.1.0.6"), t));
        assertEquals(ResponseRateLimiter.Verdict.DROP, l.admit(InetAddress.getByName("10.1.0.7"), t), "slip 0 drops them all");
        assertEquals(ResponseRateLimiter.Verdict.ANSWER, l.admit(InetAddress.getByName("10.1.1.7"), t));
    }

    @Test
    void theGlobalShedDropsWhatIsOverItFromAnyClient() throws Exception {
        ResponseRateLimiter l = new ResponseRateLimiter(settings(1000, 2, 32, 5));
        long t = 7 * SECOND;
        int answered = 0;
        for (int i = 0; i < 20; i++) {
            if (l.admit(InetAddress.getByName("10.2.0." + i), t) == ResponseRateLimiter.Verdict.ANSWER) answered++;
        }
        assertEquals(5, answered);
        assertEquals(15, l.totals()[2], "counted as shed");
    }

    @Test
    void aTruncatedReplyIsTheQuestionWithTcAndNeverLarger() throws Exception {
        byte[] q = org.xbill.DNS.Message.newQuery(org.xbill.DNS.Record.newRecord(org.xbill.DNS.Name.fromString("a.example."),
                org.xbill.DNS.Type.A, org.xbill.DNS.DClass.IN)).toWire();
        byte[] out = new byte[512];
        int n = ResponseRateLimiter.truncatedReply(q, q.length, out);
        assertTrue(n > 0 && n <= q.length);
        org.xbill.DNS.Message reply = new org.xbill.DNS.Message(java.util.Arrays.copyOf(out, n));
        assertTrue(reply.getHeader().getFlag(org.xbill.DNS.Flags.QR) && reply.getHeader().getFlag(org.xbill.DNS.Flags.TC));
        assertEquals("a.example.", reply.getQuestion().getName().toString());
        assertEquals(0, reply.getSection(org.xbill.DNS.Section.ANSWER).size());
    }

    @Test
    void exemptClientsAreNeverLimited() throws Exception {
        ResponseRateLimiter l = new ResponseRateLimiter(new RrlSettings(true, 1, 0, 32, 128, 0, 1024,
                List.of(io.meshdns.dns.base.Cidr.parse("127.0.0.0/8"), io.meshdns.dns.base.Cidr.parse("::1/128"))));
        long t = 9 * SECOND;
        for (int i = 0; i < 10; i++) {
            assertEquals(ResponseRateLimiter.Verdict.ANSWER, l.admit(InetAddress.getByName("127.0.0.1"), t));
            assertEquals(ResponseRateLimiter.Verdict.ANSWER, l.admit(InetAddress.getByName("::1"), t));
        }
        assertEquals(ResponseRateLimiter.Verdict.ANSWER, l.admit(InetAddress.getByName("10.0.0.1"), t));
        assertEquals(ResponseRateLimiter.Verdict.DROP, l.admit(InetAddress.getByName("10.0.0.1"), t));
    }

    @Test
    void badSettingsNameTheKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> settings(0, 2, 32, 0));
        assertTrue(e.getMessage().startsWith("meshdns.dns.rrl.responses-per-second: "), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> settings(10, -1, 32, 0));
        assertThrows(IllegalArgumentException.class, () -> settings(10, 2, 32, -5));
        assertNotEquals(0, new ResponseRateLimiter(settings(1, 1, 32, 0)).settings().responsesPerSecond());
    }
}
