package io.meshdns.model;

/** core/v1 Service types, as the catalog needs them. */
public enum ServiceType {
    CLUSTER_IP,
    NODE_PORT,
    LOAD_BALANCER,
    EXTERNAL_NAME
}
