package io.meshdns.model;

import java.util.List;

/**
 * What discovery knows about one cluster. A stale cluster still contributes its last known state;
 * {@code gatewayAddresses} are the cluster's east-west gateway addresses, if discovery found any.
 */
public record ClusterStatus(String name, boolean local, boolean stale, long lastSyncEpochMillis,
                            List<String> gatewayAddresses) {
    public ClusterStatus {
        gatewayAddresses = gatewayAddresses == null ? List.of() : List.copyOf(gatewayAddresses);
    }
}
