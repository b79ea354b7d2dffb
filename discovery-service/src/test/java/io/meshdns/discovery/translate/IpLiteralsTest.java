package io.meshdns.discovery.translate;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

class IpLiteralsTest {
    @Test
    void ipLiteralsAreStrict() {
        assertTrue(IpLiterals.isIpv4("192.0.2.1"));
        for (String bad : List.of("192.0.2", "192.0.2.01", "1.2.3.4.5", "a.b.c.d", "", "256.0.0.1")) {
            assertTrue(!IpLiterals.isIpv4(bad), bad);
        }
        assertTrue(IpLiterals.isIpv6("2001:db8::1"));
        assertTrue(IpLiterals.isIpv6("::ffff:192.0.2.1"));
        for (String bad : List.of("2001:db8:::1", "fe80::1%eth0", "gggg::1", "example.com")) {
            assertTrue(!IpLiterals.isIpv6(bad), bad);
        }
    }
}
