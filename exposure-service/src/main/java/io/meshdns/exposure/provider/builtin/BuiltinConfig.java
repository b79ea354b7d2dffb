package io.meshdns.exposure.provider.builtin;

import io.smallrye.config.ConfigMapping;
import java.util.List;
import java.util.Optional;

/** {@code meshdns.exposure.builtin.*}: RFC 2136 to every dns-service replica (zones and TSIG from rfc2136.*). */
@ConfigMapping(prefix = "meshdns.exposure.builtin")
public interface BuiltinConfig {
    /** host:port of each dns-service replica; each is read and reconciled independently. */
    Optional<List<String>> targets();
}
