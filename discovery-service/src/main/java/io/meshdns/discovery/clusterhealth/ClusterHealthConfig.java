package io.meshdns.discovery.clusterhealth;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * {@code meshdns.discovery.cluster-health.*}: TCP probes of each cluster's east-west gateway, the data plane a call
 * from another cluster goes through. Nothing is probed unless {@code gateways} names a cluster.
 */
@ConfigMapping(prefix = "meshdns.discovery.cluster-health")
public interface ClusterHealthConfig {
    /** {@code gateways.<cluster>=host:port[,host:port]}: the cluster's gateway is up while any of them accepts a TCP connection. */
    Map<String, List<String>> gateways();

    /** Time between two probes of one cluster. */
    @WithDefault("5s")
    Duration interval();

    /** How long a probe waits for the connection. */
    @WithDefault("1s")
    Duration timeout();

    /** Consecutive failed probes before a healthy gateway counts as down. */
    @WithDefault("3")
    int unhealthyThreshold();

    /** Consecutive good probes before a down gateway counts as up again. */
    @WithDefault("2")
    int healthyThreshold();
}
