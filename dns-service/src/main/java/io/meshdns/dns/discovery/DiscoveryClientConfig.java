package io.meshdns.dns.discovery;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;
import java.util.Optional;

/** The discovery feed of dns-service (dns-service side). */
@ConfigMapping(prefix = "meshdns.dns")
public interface DiscoveryClientConfig {
    /** The value of {@code meshdns.dns.discovery-url} that selects the in-process Vert.x event bus feed. */
    String EVENT_BUS = "eventbus";

    /**
     * {@code meshdns.dns.discovery-url}: {@code http(s)://host:port} of discovery-service, or {@value #EVENT_BUS}
     * for the all-in-one process. Unset: no live feed (the snapshot file alone, if any, is served).
     */
    Optional<String> discoveryUrl();

    /** {@code meshdns.dns.discovery-token}: the bearer token sent to discovery-service. */
    Optional<String> discoveryToken();

    /**
     * {@code meshdns.dns.snapshot-file}: where the last snapshot is persisted and loaded from at start. Without a
     * discovery-url it is only read (a fixture or an edge node's shipped catalog).
     */
    Optional<String> snapshotFile();

    Discovery discovery();

    interface Discovery {
        /** {@code meshdns.dns.discovery.backoff-initial}: first reconnect delay (doubled per failure, with jitter). */
        @WithDefault("250ms")
        Duration backoffInitial();

        /** {@code meshdns.dns.discovery.backoff-max}: the reconnect delay cap. */
        @WithDefault("30s")
        Duration backoffMax();

        /** {@code meshdns.dns.discovery.idle-timeout}: a watch with no line (not even a heartbeat) for this long is reconnected. */
        @WithDefault("90s")
        Duration idleTimeout();

        /** {@code meshdns.dns.discovery.persist-delay}: snapshot file writes are debounced by this much. */
        @WithDefault("1s")
        Duration persistDelay();

        /** {@code meshdns.dns.discovery.tls.*}: how an {@code https} discovery-url is trusted (see {@link DiscoveryTls}). */
        Tls tls();
    }

    /** Trust and client identity for an {@code https} discovery-url; every file is PEM and reread on reconnect. */
    interface Tls {
        /** {@code meshdns.dns.discovery.tls.ca-file}: CA certificate(s) discovery's certificate must chain to. Unset: the JVM's trust store. */
        Optional<String> caFile();

        /** {@code meshdns.dns.discovery.tls.server-name}: the name discovery's certificate must carry (SNI too). Unset: the URL's host. */
        Optional<String> serverName();

        /** {@code meshdns.dns.discovery.tls.cert-file}: client certificate (chain) for mutual TLS; needs key-file. */
        Optional<String> certFile();

        /** {@code meshdns.dns.discovery.tls.key-file}: the client certificate's private key (PKCS#8 or PKCS#1 PEM); needs cert-file. */
        Optional<String> keyFile();
    }
}
