package io.meshdns.dns.testing;

import io.quarkus.test.junit.QuarkusTestProfile;

import java.util.HashMap;
import java.util.Map;

/**
 * The app a listener test starts: the records of {@code src/test/resources/zones/tcp.zone}, asked by clients on
 * loopback, with the keys of the test's own concern on top.
 */
public abstract class ListenerTestProfile implements QuarkusTestProfile {

    /** The keys this profile sets besides the zone and the loopback clients. */
    protected abstract Map<String, String> overrides();

    @Override
    public final Map<String, String> getConfigOverrides() {
        Map<String, String> all = new HashMap<>();
        all.put("meshdns.dns.zone-files", "src/test/resources/zones/tcp.zone");
        all.put("meshdns.dns.allowed-clients", "127.0.0.0/8");
        all.putAll(overrides());
        return all;
    }
}
