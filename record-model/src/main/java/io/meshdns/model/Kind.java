package io.meshdns.model;

/** The kinds of Kubernetes object the catalog keeps. */
public enum Kind {
    NAMESPACE,
    SERVICE,
    ENDPOINT_SLICE,
    POD,
    SERVICE_ENTRY,
    SERVICE_IMPORT
}
