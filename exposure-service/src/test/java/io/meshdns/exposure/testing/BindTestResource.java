package io.meshdns.exposure.testing;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.meshdns.testsupport.dns.BindServer;
import io.meshdns.testsupport.dns.DnsServer;
import java.util.List;
import java.util.Map;

/**
 * Starts one BIND9 for the Quarkus test boot (zone mesh.test, with foreign records that must never
 * be touched) and points the rfc2136 provider at it.
 */
public class BindTestResource implements QuarkusTestResourceLifecycleManager {

    public static final String FOREIGN = """
            foreign IN A 192.0.2.99
            foreign IN TXT "hand-made, not ours"
            """;

    private static BindServer bind;

    public static BindServer bind() {
        return bind;
    }

    @Override
    public Map<String, String> start() {
        try {
            bind = new BindServer("hmac-sha256", List.of("mesh.test"));
            bind.start(FOREIGN);
        } catch (Exception e) {
            throw new IllegalStateException("cannot start BIND9", e);
        }
        return Map.of(
                "meshdns.exposure.provider", "rfc2136",
                "meshdns.exposure.rfc2136.host", "127.0.0.1",
                "meshdns.exposure.rfc2136.port", String.valueOf(bind.port()),
                "meshdns.exposure.rfc2136.zones", "mesh.test",
                "meshdns.exposure.rfc2136.tsig-key-name", DnsServer.KEY_NAME,
                "meshdns.exposure.rfc2136.tsig-secret", bind.secret(),
                "meshdns.exposure.rfc2136.tsig-algorithm", "hmac-sha256");
    }

    @Override
    public void stop() {
        try {
            if (bind != null) bind.close();
        } catch (Exception ignored) {
            // temp dir cleanup best effort
        }
    }
}
