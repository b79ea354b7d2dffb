package io.meshdns.dns.server;

import io.meshdns.dns.testing.ListenerTestProfile;

import java.util.Map;

/**
 * Vert.x on the JDK transport, as Quarkus puts it in every native image whatever prefer-native-transport says,
 * and reuse-port asked for, as the DaemonSet asks: the DNS sockets must be on epoll all the same.
 */
public class ListenerTransportProfile extends ListenerTestProfile {
    @Override
    protected Map<String, String> overrides() {
        return Map.of(
                "quarkus.vertx.prefer-native-transport", "false",
                "meshdns.dns.reuse-port", "true",
                "meshdns.dns.drain", "0");
    }
}
