package io.meshdns.exposure.provider.pdns;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;

/** {@code meshdns.exposure.pdns.*}: ExternalDNS's --pdns-* flags. */
@ConfigMapping(prefix = "meshdns.exposure.pdns")
public interface PdnsConfig {
    /** ExternalDNS --pdns-server: the HTTP API base, e.g. http://pdns:8081 (a path prefix is kept). */
    Optional<String> server();

    /** ExternalDNS --pdns-api-key (sent as X-API-Key). */
    Optional<String> apiKey();

    /** ExternalDNS --pdns-server-id. */
    @WithDefault("localhost")
    String serverId();

    @WithDefault("10s")
    Duration timeout();
}
