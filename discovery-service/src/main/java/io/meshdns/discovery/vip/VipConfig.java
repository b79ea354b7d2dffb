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

    /** {@code meshdns.discovery.leader-election.*}: which replica allocates VIPs. */
    LeaderElection leaderElection();

    /**
     * One replica, the holder of a Lease in discovery's namespace, allocates and writes the VIP table; the others
     * follow the ConfigMap and answer its VIPs, never allocating their own.
     */
    interface LeaderElection {
        /**
         * {@code meshdns.discovery.leader-election.enabled}: unset means on when the table is the ConfigMap (a
         * local cluster), off otherwise (file store, manifests only, edge: one process, nothing to elect in).
         */
        Optional<Boolean> enabled();

        /** {@code meshdns.discovery.leader-election.lease-name}: the Lease (in {@code meshdns.discovery.namespace}). */
        @WithDefault("discovery-service-vip-allocator")
        String leaseName();

        /** {@code meshdns.discovery.leader-election.lease-duration}: how long a leader that stopped renewing keeps the Lease. */
        @WithDefault("15s")
        java.time.Duration leaseDuration();

        /** {@code meshdns.discovery.leader-election.renew-deadline}: a leader that cannot renew for this long steps down; below the lease duration. */
        @WithDefault("10s")
        java.time.Duration renewDeadline();

        /** {@code meshdns.discovery.leader-election.retry-period}: how often a candidate tries to take the Lease. */
        @WithDefault("2s")
        java.time.Duration retryPeriod();
    }
}
