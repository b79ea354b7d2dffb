package io.meshdns.discovery.tls;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** discovery-service's own TLS setting; the certificate itself is Quarkus's ({@code quarkus.tls.*}, see README). */
@ConfigMapping(prefix = "meshdns.discovery.tls")
public interface DiscoveryTlsConfig {
    /**
     * {@code meshdns.discovery.tls.require-client-certificate}: the API ({@code /v1/*}) and {@code /status} answer
     * only callers that presented a certificate chaining to {@code quarkus.tls.trust-store.*} (mutual TLS), on top
     * of the bearer token. Health and metrics stay open to the kubelet and Prometheus.
     */
    @WithDefault("false")
    boolean requireClientCertificate();
}
