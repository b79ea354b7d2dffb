package io.meshdns.dns.server;

import io.quarkus.test.junit.QuarkusTestProfile;

import java.util.Map;

/** Two UDP workers: two sockets on one port with SO_REUSEPORT, each on its own event loop; reuse-port itself stays off. */
public class UdpWorkersProfile implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "meshdns.dns.udp-workers", "2",
                "meshdns.dns.zone-files", "src/test/resources/zones/tcp.zone",
                "meshdns.dns.allowed-clients", "127.0.0.0/8");
    }
}
