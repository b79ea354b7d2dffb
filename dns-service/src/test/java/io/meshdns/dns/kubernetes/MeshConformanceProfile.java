package io.meshdns.dns.kubernetes;

import io.meshdns.testsupport.dns.KnotServer;
import io.meshdns.model.WireFormat;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTestProfile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The one extra app boot of the mesh conformance suite: the {@link MeshFixture} catalog written as a snapshot
 * file (read through {@code meshdns.dns.snapshot-file}, no discovery-url: the real file code path), every
 * mesh feature switched on, and a real Knot on loopback standing in for the Internet: it serves
 * {@code example.}, {@code google.com.} and {@code 10.in-addr.arpa.}, reached through per-zone forwards.
 */
public class MeshConformanceProfile implements QuarkusTestProfile {
    static final String PLACEHOLDER = "1.1.1.2";

    @Override
    public Map<String, String> getConfigOverrides() {
        Path file = Path.of("target", "mesh-conformance", "catalog.json");
        try {
            Files.createDirectories(file.getParent());
            Files.write(file, WireFormat.encode(MeshFixture.snapshot()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Map.ofEntries(
                Map.entry("meshdns.dns.snapshot-file", file.toString()),
                Map.entry("meshdns.dns.cluster-name", "east"),
                Map.entry("meshdns.dns.pods", "insecure"),
                Map.entry("meshdns.dns.placeholder.enabled", "true"),
                Map.entry("meshdns.dns.placeholder.ipv4", PLACEHOLDER),
                Map.entry("meshdns.dns.placeholder.service-entry-suffixes", "service.entry"),
                Map.entry("meshdns.dns.autopath.enabled", "true"),
                Map.entry("meshdns.dns.multicluster.spread", "round-robin"),
                Map.entry("meshdns.dns.allowed-clients", "127.0.0.0/8"),
                // The forwarder's cache is on: the UDP fast path then replays forwarded names, and the per-client rows must
                // prove that it never replays one client's answer to another.
                Map.entry("meshdns.dns.cache.enabled", "true"),
                // The test profile logs every query, which switches the fast path off: this suite needs it on.
                Map.entry("meshdns.dns.query-log", "false"));
    }

    @Override
    public List<TestResourceEntry> testResources() {
        return List.of(new TestResourceEntry(Upstream.class));
    }

    /** Knot as the upstream, started before the app so that meshdns.dns.upstreams can name its port. */
    public static class Upstream implements QuarkusTestResourceLifecycleManager {
        private KnotServer knot;

        @Override
        public Map<String, String> start() {
            try {
                Path dir = Files.createTempDirectory("mesh-upstream");
                knot = new KnotServer(dir)
                        .zone("example", zone("example", "upstream IN A 192.0.2.200\nhidden IN A 192.0.2.201\n"))
                        .zone("google.com", zone("google.com", "@ IN A 192.0.2.100\n"))
                        .zone("10.in-addr.arpa", zone("10.in-addr.arpa", "99.99.99 IN PTR somewhere.example.\n"));
                knot.start();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            // Per-zone forwards, not meshdns.dns.upstreams: the module's GLOBAL BIND resource owns that key.
            return Map.of("meshdns.dns.zone-forwards",
                    "example=" + knot.address() + ",google.com=" + knot.address() + ",10.in-addr.arpa=" + knot.address());
        }

        private static String zone(String origin, String body) {
            return "$ORIGIN " + origin + ".\n$TTL 300\n@ IN SOA ns." + origin + ". hostmaster." + origin + ". 1 3600 600 86400 60\n"
                    + "@ IN NS ns." + origin + ".\nns." + origin + ". IN A 127.0.0.1\n" + body;
        }

        @Override
        public void stop() {
            if (knot != null) knot.close();
        }
    }
}
