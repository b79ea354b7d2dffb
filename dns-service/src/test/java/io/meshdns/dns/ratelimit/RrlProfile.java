package io.meshdns.dns.ratelimit;

import io.meshdns.dns.testing.ListenerTestProfile;

import java.util.Map;

/** A low response rate, so a bounded flood over loopback reaches it in a second. */
public class RrlProfile extends ListenerTestProfile {
    static final int RATE = 50;

    @Override
    protected Map<String, String> overrides() {
        return Map.of(
                "meshdns.dns.query-log", "false",
                "meshdns.dns.rrl.responses-per-second", String.valueOf(RATE),
                "meshdns.dns.rrl.slip", "2",
                // the test's clients are on loopback, which is exempt by default
                "meshdns.dns.rrl.exempt-clients", "127.0.0.1/32");
    }
}
