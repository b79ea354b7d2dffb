package io.meshdns.dns.server;

import io.quarkus.test.junit.QuarkusTestProfile;

import java.util.Map;

/** The test app with the query log off, so the UDP fast path (which the log disables) is on. */
public class FastPathProfile implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("meshdns.dns.query-log", "false");
    }
}
