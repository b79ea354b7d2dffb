package io.meshdns.dns.forward;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import io.meshdns.dns.Dig;
import io.meshdns.dns.server.DnsServer;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * dig → meshdns (real listener) → forwarder → BIND9 (the GLOBAL {@code BindUpstreamResource},
 * serving example.test; see {@link ForwarderWiringTest}).
 */
@QuarkusTest
class ForwardingEndToEndTest {
    @Inject
    DnsServer server;

    @Test
    void digResolvesANameOutsideOurZonesThroughTheUpstream() throws Exception {
        Dig.Result first = Dig.dig("127.0.0.1", server.boundPort(), "e2e.wild.example.test", "A");
        assertEquals("NOERROR", first.status(), first.raw());
        assertEquals(List.of("192.0.2.7"), first.answerData());
        assertFalse(first.hasFlag("aa"), "a forwarded answer is not ours: " + first.flags());
        assertTrue(first.hasFlag("ra"), first.raw());

        Dig.Result cached = Dig.dig("127.0.0.1", server.boundPort(), "E2E.Wild.Example.Test", "A");
        assertEquals(List.of("192.0.2.7"), cached.answerData());
        assertTrue(cached.answer().get(0).startsWith("E2E.Wild.Example.Test."), "0x20 case echoed: " + cached.answer());
    }

    @Test
    void digGetsALargeUpstreamAnswerWhole() throws Exception {
        // BIND truncates it over UDP, so the forwarder fetches it over TCP; dig then gets TC from our
        // listener over UDP and retries over TCP itself.
        Dig.Result big = Dig.dig("127.0.0.1", server.boundPort(), "big.example.test", "TXT");
        assertEquals("NOERROR", big.status(), big.raw());
        assertEquals(20, big.answer().size(), big.raw());
    }

    @Test
    void digGetsNxdomainWithTheUpstreamSoa() throws Exception {
        Dig.Result nx = Dig.dig("127.0.0.1", server.boundPort(), "nope-e2e.example.test", "A");
        assertEquals("NXDOMAIN", nx.status(), nx.raw());
        assertEquals(1, nx.authority().size(), nx.raw());
        assertTrue(nx.authority().get(0).contains("SOA"), nx.raw());
    }
}
