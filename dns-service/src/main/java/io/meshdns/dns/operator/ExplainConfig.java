package io.meshdns.dns.operator;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.util.Optional;

/**
 * {@code meshdns.dns.explain.*}: who may ask {@code /v1/explain} what. The endpoint answers through the real query
 * path, so it is held to the DNS listeners' standard: only clients {@code meshdns.dns.allowed-clients} admits may
 * call it, a few at a time, and only an operator holding the token may ask as another client ({@code client=}).
 */
@ConfigMapping(prefix = "meshdns.dns.explain")
public interface ExplainConfig {
    String TOKEN = "meshdns.dns.explain.token";
    String MAX_CONCURRENT = "meshdns.dns.explain.max-concurrent";

    /**
     * Bearer token ({@code Authorization: Bearer <token>}) that lets a caller ask as another client
     * ({@code client=<pod IP>}); without it every question is asked as the caller's own address.
     */
    Optional<String> token();

    /** Explains answered at once; more get 429 (each may wait on an upstream for a few seconds). */
    @WithDefault("4")
    int maxConcurrent();
}
