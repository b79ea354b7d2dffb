package io.meshdns.dns.ratelimit;

import io.quarkus.test.junit.QuarkusTestProfile;

import java.util.Map;

/** A low response rate, so a bounded flood over loopback reaches it in a second. */
public class RrlProfile implements QuarkusTestProfile {
    static final int RATE = 50;

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "meshdns.dns.zone-files", "src/test/resources/zones/tcp.zone",
                "meshdns.dns.allowed-clients", "127.0.0.0/8",
                "meshdns.dns.query-log", "false",
                "meshdns.dns.rrl.responses-per-second", String.valueOf(RATE),
                "meshdns.dns.rrl.slip", "2",
                // the test's clients are on loopback, which is exempt by default
                "meshdns.dns.rrl.exempt-clients", "127.0.0.1/32");
    }
}
