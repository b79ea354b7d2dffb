package io.meshdns.discovery.vip;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** ServiceEntry VIP allocation keys. */
@ConfigMapping(prefix = "meshdns.discovery")
public interface VipConfig {

    /** {@code meshdns.discovery.vip-ranges}: CIDRs VIPs come from, one VIP per range and host (Istio's auto-allocation ranges by default). */
    @WithDefault("240.240.0.0/16,2001:2::/48")
    List<String> vipRanges();

    /** {@code meshdns.discovery.vip-configmap}: the ConfigMap holding the allocation when the local cluster is watched. */
    @WithDefault("meshdns-vips")
    String vipConfigmap();

    /**
     * {@code meshdns.discovery.vip-release-delay}: how long a host must stay absent from every
     * ServiceEntry before its VIPs are freed. Guards against a half-listed catalog (a cluster whose
     * ServiceEntry informer has not listed yet after a restart) freeing VIPs that are still in use.
     */
    @WithDefault("5m")
    java.time.Duration vipReleaseDelay();

    /**
     * {@code meshdns.discovery.vip-source}: where a ServiceEntry host's VIPs come from. {@code istio-first}: the
     * addresses Istio's auto-allocation wrote to {@code status.addresses}, else our own; {@code own}: ours only
     * (Istio versions without auto-allocation, or when it is off); {@code istio-only}: Istio's only, never ours.
     */
    @WithDefault("istio-first")
    String vipSource();

    /** {@code meshdns.discovery.vip-file}: the allocation file for manifest-only / edge mode (no local cluster). */
    Optional<Path> vipFile();

    /**
     * {@code meshdns.discovery.namespace}: discovery's own namespace (for the VIP ConfigMap). Unset: the
     * ServiceAccount's namespace in a pod, else the client's current namespace, else {@code default}.
     */
    Optional<String> namespace();
}
