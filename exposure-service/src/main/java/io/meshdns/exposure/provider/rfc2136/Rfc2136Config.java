package io.meshdns.exposure.provider.rfc2136;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** {@code meshdns.exposure.rfc2136.*}: ExternalDNS's --rfc2136-* flags. Zones and TSIG are shared with the builtin provider. */
@ConfigMapping(prefix = "meshdns.exposure.rfc2136")
public interface Rfc2136Config {
    Optional<String> host();

    @WithDefault("53")
    int port();

    Optional<List<String>> zones();

    Optional<String> tsigKeyName();

    Optional<String> tsigSecret();

    @WithDefault("hmac-sha256")
    String tsigAlgorithm();

    @WithDefault("10s")
    Duration timeout();

    /** ExternalDNS --rfc2136-min-ttl: no record is written with a smaller TTL (a floor, not a default). */
    @WithDefault("0s")
    Duration minTtl();

    /**
     * ExternalDNS --rfc2136-batch-change-size: at most this many operations (an RRset replace or delete,
     * a record add or delete) in one UPDATE message; unset = as many as fit in 64 KiB.
     */
    Optional<Integer> batchChangeSize();
}
