package io.meshdns.exposure.provider.webhook;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;

/** {@code meshdns.exposure.webhook.*}: ExternalDNS's --webhook-provider-* flags. */
@ConfigMapping(prefix = "meshdns.exposure.webhook")
public interface WebhookConfig {
    /** ExternalDNS --webhook-provider-url, e.g. http://localhost:8888. */
    Optional<String> url();

    /** ExternalDNS --webhook-provider-read-timeout. */
    @WithDefault("5s")
    Duration readTimeout();

    /** ExternalDNS --webhook-provider-write-timeout. */
    @WithDefault("10s")
    Duration writeTimeout();

    /** Attempts per request when the provider answers 5xx or cannot be reached (ExternalDNS retries 5 times). */
    @WithDefault("5")
    int maxAttempts();

    /**
     * Largest response body read from the provider, in bytes (ExternalDNS caps webhook bodies at 32 MiB
     * and answers 413 above it on its side); a larger answer fails the request without being read.
     */
    @WithDefault("33554432")
    long maxResponseBytes();
}
