package io.meshdns.dns.server;

import io.quarkus.test.junit.QuarkusTestProfile;

import java.util.Map;

/**
 * Vert.x on the JDK transport, as Quarkus puts it in every native image whatever prefer-native-transport says,
 * and reuse-port asked for, as the DaemonSet asks: the DNS sockets must be on epoll all the same.
 */
public class ListenerTransportProfile implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "quarkus.vertx.prefer-native-transport", "false",
                "meshdns.dns.reuse-port", "true",
                "meshdns.dns.drain", "0",
                "meshdns.dns.zone-files", "src/test/resources/zones/tcp.zone",
                "meshdns.dns.allowed-clients", "127.0.0.0/8");
    }
}
