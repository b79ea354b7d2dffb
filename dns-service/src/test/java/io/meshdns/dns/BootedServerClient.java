package io.meshdns.dns;

import io.meshdns.dns.server.DnsServer;
import io.quarkus.arc.Unremovable;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * Lets a {@code @QuarkusTest} write {@code @Inject DnsClient client;} for a client of the booted app's DNS
 * listener, on the port it bound itself: each test instance gets its own, made once the app is up.
 */
@Singleton
public class BootedServerClient {
    @Produces
    @Dependent
    @Unremovable
    DnsClient client(DnsServer server) {
        return new DnsClient(server.boundPort());
    }
}
