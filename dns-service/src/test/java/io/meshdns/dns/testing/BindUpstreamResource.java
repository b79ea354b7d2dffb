package io.meshdns.dns.testing;

import io.meshdns.testsupport.dns.BindServer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * Starts a BIND9 upstream serving {@code example.test} ({@link TestZones#example}, www = 192.0.2.1)
 * for a {@code @QuarkusTest} and points {@code meshdns.dns.upstreams} at it. Also moves our own
 * DNS and HTTP test ports to free ones so parallel builds on one machine do not collide.
 */
public class BindUpstreamResource implements QuarkusTestResourceLifecycleManager {
    private Path dir;
    private BindServer bind;

    @Override
    public Map<String, String> start() {
        try {
            dir = Files.createTempDirectory("meshdns-bind");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        bind = new BindServer(dir).zone("example.test", TestZones.example("example.test", "192.0.2.1"));
        bind.start();
        return Map.of(
                "meshdns.dns.upstreams", bind.address(),
                "meshdns.dns.port", "0",
                "quarkus.http.test-port", "0");
    }

    @Override
    public void stop() {
        if (bind != null) {
            bind.close();
        }
        if (dir != null) {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                // a temp dir left behind is harmless
            }
        }
    }
}
