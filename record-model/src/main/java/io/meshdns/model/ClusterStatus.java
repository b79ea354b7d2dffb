package io.meshdns.model;

import java.util.List;

/**
 * What discovery knows about one cluster. A stale cluster still contributes its last known state;
 * {@code gatewayAddresses} are the cluster's east-west gateway addresses, if discovery found any.
 * {@code gatewayHealthy}: the data plane as discovery's probes of the cluster's gateway see it (null: not probed),
 * since {@code healthChangedEpochMillis}: health is catalog data, read by the nodes' answer policy.
 */
public record ClusterStatus(String name, boolean local, boolean stale, long lastSyncEpochMillis,
                            List<String> gatewayAddresses, Boolean gatewayHealthy, long healthChangedEpochMillis) {
    public ClusterStatus {
        gatewayAddresses = gatewayAddresses == null ? List.of() : List.copyOf(gatewayAddresses);
    }

    public ClusterStatus(String name, boolean local, boolean stale, long lastSyncEpochMillis, List<String> gatewayAddresses) {
        this(name, local, stale, lastSyncEpochMillis, gatewayAddresses, null, 0);
    }

    /** This status with the gateway's health as the probes last decided it. */
    public ClusterStatus withGatewayHealth(Boolean healthy, long sinceEpochMillis) {
        return new ClusterStatus(name, local, stale, lastSyncEpochMillis, gatewayAddresses, healthy, sinceEpochMillis);
    }
}
