package io.meshdns.dns.operator;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.util.OptionalInt;

/**
 * {@code meshdns.dns.metrics.*}: the CoreDNS-style metrics listener. CoreDNS users scrape
 * {@code :9153/metrics}; set {@code meshdns.dns.metrics.port=9153} for the same (the HTTP port serves
 * {@code /metrics} and {@code /q/metrics} either way).
 */
@ConfigMapping(prefix = "meshdns.dns.metrics")
public interface OperatorConfig {
    /** A second HTTP listener serving only {@code /metrics}; unset = none. */
    OptionalInt port();

    @WithDefault("127.0.0.1")
    String bindAddress();
}
