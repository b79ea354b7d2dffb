package io.meshdns.dns.testing;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Starts a real Knot on a loopback port before the module's one Quarkus boot and makes it the
 * dns-service upstream, so forwarded test queries never leave loopback (without it the forwarder
 * would use the host's /etc/resolv.conf). Knot serves {@code upstream.example} (see
 * {@link TestZones#example}); tests stop and restart it through {@link #knot()}.
 */
public final class KnotUpstreamResource implements QuarkusTestResourceLifecycleManager {
    public static final String ZONE = "upstream.example";
    public static final String WWW = "192.0.2.80";
    private static volatile KnotServer knot;

    public static KnotServer knot() {
        return knot;
    }

    @Override
    public Map<String, String> start() {
        try {
            Path dir = Files.createTempDirectory("meshdns-upstream-knot");
            knot = KnotServer.withZone(dir, ZONE, TestZones.example(ZONE, WWW));
            knot.start();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return Map.of("meshdns.dns.upstreams", knot.address());
    }

    @Override
    public void stop() {
        if (knot != null) {
            knot.stop();
        }
    }
}
