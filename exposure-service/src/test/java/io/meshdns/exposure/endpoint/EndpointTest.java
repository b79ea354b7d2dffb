package io.meshdns.exposure.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class EndpointTest {

    @Test
    void addressesAreCanonicalAndStayTheirType() {
        assertEquals("2001:db8::1", Endpoint.normalizeTarget("AAAA", "2001:DB8:0:0:0:0:0:1"));
        assertEquals("192.0.2.1", Endpoint.normalizeTarget("A", " 192.0.2.1 "));
        // Java parses an IPv4-mapped IPv6 literal into an IPv4 address; as an AAAA target it must stay IPv6 text
        // (RFC 5952 section 5), or the endpoint could not even be normalised a second time.
        String mapped = Endpoint.normalizeTarget("AAAA", "::FFFF:192.0.2.1");
        assertEquals("::ffff:192.0.2.1", mapped);
        assertEquals(mapped, Endpoint.normalizeTarget("AAAA", mapped));
        Endpoint e = new Endpoint("mapped.example", "AAAA", List.of("::ffff:192.0.2.1"), 60, null, null);
        assertEquals(e, e.withProviderSpecific(e.providerSpecific()));
        assertThrows(IllegalArgumentException.class, () -> Endpoint.normalizeTarget("A", "::ffff:192.0.2.1"));
        assertThrows(IllegalArgumentException.class, () -> Endpoint.normalizeTarget("AAAA", "192.0.2.1"));
    }
}
