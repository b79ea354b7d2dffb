package io.meshdns.dns.kubernetes;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Kubernetes / mesh naming keys. Strings are parsed by {@link MeshNaming} so that a bad value
 * fails at start with a message naming its key.
 */
@ConfigMapping(prefix = "meshdns.dns")
public interface KubernetesDnsConfig {

    /** {@code meshdns.dns.cluster-domain}. */
    @WithDefault("cluster.local")
    String clusterDomain();

    /** {@code meshdns.dns.clusterset-domain}: the MCS domain. */
    @WithDefault("clusterset.local")
    String clustersetDomain();

    /**
     * {@code meshdns.dns.cluster-name}: this node's cluster, exactly as discovery names it
     * ({@code meshdns.discovery.cluster-name}). Unset: the cluster the catalog marks local.
     */
    Optional<String> clusterName();

    /** {@code meshdns.dns.remote-service-policy}: cluster-ip, gateway or placeholder. */
    @WithDefault("cluster-ip")
    String remoteServicePolicy();

    /** {@code meshdns.dns.cluster-gateways.<cluster>=ip,ip}: east-west gateway addresses, overriding discovery's. */
    Map<String, String> clusterGateways();

    /** {@code meshdns.dns.pods}: disabled, insecure or verified. */
    @WithDefault("disabled")
    String pods();

    /**
     * {@code meshdns.dns.default-export-to}: Istio's {@code defaultServiceExportTo}, the exportTo of Services and
     * ServiceEntries that set none ({@code *} every namespace, {@code .} the object's own, {@code ~} none, or names).
     */
    @WithDefault("*")
    List<String> defaultExportTo();

    Kubernetes kubernetes();

    Clusterset clusterset();

    Multicluster multicluster();

    Locality locality();

    Placeholder placeholder();

    Autopath autopath();

    interface Kubernetes {
        /** {@code meshdns.dns.kubernetes.ttl}. */
        @WithDefault("5")
        long ttl();
    }

    interface Multicluster {
        /** {@code meshdns.dns.multicluster.spread}: shuffle, round-robin or none. */
        @WithDefault("shuffle")
        String spread();

        /**
         * {@code meshdns.dns.multicluster.failover-to-remote}: a local Service with no ready endpoint, whose copies in
         * other clusters have ready ones, answers theirs (per the remote-service policy) instead of its own.
         */
        @WithDefault("true")
        boolean failoverToRemote();

        /**
         * {@code meshdns.dns.multicluster.stale-clusters}: {@code keep} (a remote cluster discovery marks stale keeps its
         * last known records) or {@code drop} (they leave the answers as soon as it is marked stale).
         */
        @WithDefault("keep")
        String staleClusters();

        /**
         * {@code meshdns.dns.multicluster.unhealthy-clusters}: {@code keep} (today's answers whatever discovery knows of a
         * cluster's health) or {@code drop} (a remote cluster whose east-west gateway is down, or that is stale, leaves
         * the answers of every name a healthy cluster also answers; a name only unhealthy clusters answer keeps them).
         */
        @WithDefault("keep")
        String unhealthyClusters();
    }

    interface Locality {
        /**
         * {@code meshdns.dns.locality.order}: {@code zone} (this node's zone first, then the local cluster, then the
         * rest), {@code cluster} (the local cluster first) or {@code none}.
         */
        @WithDefault("zone")
        String order();

        /** {@code meshdns.dns.locality.zone}: this node's zone; unset, learned from the endpoints on {@code node-name}. */
        Optional<String> zone();

        /** {@code meshdns.dns.locality.node-name}: this node's name (the DaemonSet sets it from {@code spec.nodeName}). */
        Optional<String> nodeName();
    }

    interface Clusterset {
        /**
         * {@code meshdns.dns.clusterset.per-cluster-names}: also answer {@code <cluster>.<svc>.<ns>.svc.<clusterset>}.
         * The MCS DNS specification (2.3.4, 2.4.4) says these should not exist; off by default.
         */
        @WithDefault("false")
        boolean perClusterNames();
    }

    interface Placeholder {
        /** {@code meshdns.dns.placeholder.enabled}. */
        @WithDefault("false")
        boolean enabled();

        /** {@code meshdns.dns.placeholder.ipv4}. */
        Optional<String> ipv4();

        /** {@code meshdns.dns.placeholder.service-entry-suffixes}, e.g. {@code service.entry}. */
        Optional<List<String>> serviceEntrySuffixes();

        /**
         * {@code meshdns.dns.placeholder.service}: {@code <namespace>/<name>} of a Service (e.g. Slime's global-sidecar)
         * whose ClusterIPs are the placeholder, followed live; {@code ipv4} is used while it has none.
         */
        Optional<String> service();

        /** {@code meshdns.dns.placeholder.ttl}. */
        @WithDefault("60")
        long ttl();
    }

    interface Autopath {
        /** {@code meshdns.dns.autopath.enabled}. */
        @WithName("enabled")
        @WithDefault("false")
        boolean enabled();
    }
}
