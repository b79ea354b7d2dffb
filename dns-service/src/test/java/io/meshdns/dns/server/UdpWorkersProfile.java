package io.meshdns.dns.server;

import io.meshdns.dns.testing.ListenerTestProfile;

import java.util.Map;

/** Two UDP workers: two sockets on one port with SO_REUSEPORT, each on its own event loop; reuse-port itself stays off. */
public class UdpWorkersProfile extends ListenerTestProfile {
    @Override
    protected Map<String, String> overrides() {
        return Map.of("meshdns.dns.udp-workers", "2");
    }
}
