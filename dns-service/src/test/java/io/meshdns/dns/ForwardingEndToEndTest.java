package io.meshdns.dns;

import io.meshdns.dns.server.DnsServer;
import io.meshdns.dns.testing.KnotUpstreamResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * dig → meshdns (listener, answerer, forwarder, cache) → a real Knot upstream, all over loopback
 * sockets. The forwarder and cache are unit-tested in their packages; this proves they are wired
 * into the running server.
 */
@QuarkusTest
@QuarkusTestResource(KnotUpstreamResource.class)
class ForwardingEndToEndTest {
    private static final String ZONE = KnotUpstreamResource.ZONE;

    @Inject
    DnsServer server;

    private Dig.Result dig(String... args) throws Exception {
        return Dig.dig("127.0.0.1", server.boundPort(), args);
    }

    @Test
    void namesOutsideOurZonesAreAnsweredByTheUpstreamWithoutAa() throws Exception {
        Dig.Result r = dig("www." + ZONE, "A");
        assertEquals("NOERROR", r.status());
        assertEquals(List.of(KnotUpstreamResource.WWW), r.answerData());
        assertFalse(r.hasFlag("aa"), "a forwarded answer is not ours to call authoritative");
        assertTrue(r.hasFlag("ra"));
    }

    @Test
    void negativeUpstreamAnswersKeepTheSoaWithTheRfc2308Ttl() throws Exception {
        Dig.Result r = dig("nothing-here." + ZONE, "A");
        assertEquals("NXDOMAIN", r.status());
        assertEquals(1, r.authority().size(), r.raw());
        String[] soa = r.authority().get(0).split("\\s+");
        assertEquals("SOA", soa[3]);
        assertTrue(Integer.parseInt(soa[1]) <= 60, "negative TTL = min(SOA TTL 300, MINIMUM 60): " + r.raw());
    }

    @Test
    void anUpstreamAnswerTooBigForUdpIsFetchedOverTcpAndServedWhole() throws Exception {
        Dig.Result r = dig("+tcp", "big." + ZONE, "TXT");
        assertEquals("NOERROR", r.status());
        assertEquals(20, r.answer().size(), r.raw());
    }

    @Test
    void cachedAnswersCountTheirTtlDownAndOutliveTheUpstream() throws Exception {
        Dig.Result first = dig("alias." + ZONE, "A");
        assertEquals("NOERROR", first.status());
        int firstTtl = Integer.parseInt(first.answer().get(0).split("\\s+")[1]);
        KnotUpstreamResource.knot().stop();
        try {
            // The upstream is gone: the answer now comes from the cache, its TTL counted down.
            Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(300)).untilAsserted(() -> {
                Dig.Result cached = dig("alias." + ZONE, "A");
                assertEquals("NOERROR", cached.status());
                assertEquals(first.answerData(), cached.answerData());
                assertTrue(Integer.parseInt(cached.answer().get(0).split("\\s+")[1]) < firstTtl, cached.raw());
            });
            // short.<zone> has TTL 5: once it expires, serve-stale (RFC 8767) still answers it.
            KnotUpstreamResource.knot().start();
            Dig.Result fresh = dig("short." + ZONE, "A");
            assertEquals(List.of("192.0.2.5"), fresh.answerData());
            KnotUpstreamResource.knot().stop();
            Awaitility.await().pollDelay(Duration.ofSeconds(6)).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofSeconds(1))
                    .untilAsserted(() -> {
                        Dig.Result stale = dig("short." + ZONE, "A");
                        assertEquals("NOERROR", stale.status(), stale.raw());
                        assertEquals(List.of("192.0.2.5"), stale.answerData());
                    });
        } finally {
            KnotUpstreamResource.knot().start();
        }
    }
}
