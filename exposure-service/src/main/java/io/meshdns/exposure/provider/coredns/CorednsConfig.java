package io.meshdns.exposure.provider.coredns;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.List;

/** {@code meshdns.exposure.coredns.*}: ExternalDNS's coredns provider (ETCD_URLS, --coredns-prefix). */
@ConfigMapping(prefix = "meshdns.exposure.coredns")
public interface CorednsConfig {
    /** etcd client URLs (ExternalDNS's ETCD_URLS); tried in order. */
    @WithDefault("http://localhost:2379")
    List<String> etcdUrls();

    /** ExternalDNS --coredns-prefix: where CoreDNS's etcd plugin looks (its {@code path}). */
    @WithDefault("/skydns/")
    String prefix();

    @WithDefault("5s")
    Duration timeout();

    /**
     * ExternalDNS --coredns-strictly-owned: values carry {@code "owner":"<owner-id>"}; only values of this owner are
     * read, so no other writer's key is ever updated or deleted.
     */
    @WithDefault("false")
    boolean strictlyOwned();
}
