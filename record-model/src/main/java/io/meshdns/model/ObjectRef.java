package io.meshdns.model;

import java.util.Objects;

/**
 * Identity of one catalog object: the cluster it came from, its kind and its namespace/name.
 * Every record the suite serves can be traced back to one of these (its attribution).
 * Cluster-scoped objects (namespaces) use an empty namespace.
 */
public record ObjectRef(String cluster, Kind kind, String namespace, String name) implements Comparable<ObjectRef> {
    public ObjectRef {
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(kind, "kind");
        namespace = namespace == null ? "" : namespace;
        Objects.requireNonNull(name, "name");
    }

    @Override
    public int compareTo(ObjectRef o) {
        int c = cluster.compareTo(o.cluster);
        if (c == 0) c = kind.compareTo(o.kind);
        if (c == 0) c = namespace.compareTo(o.namespace);
        if (c == 0) c = name.compareTo(o.name);
        return c;
    }

    @Override
    public String toString() {
        return cluster + "/" + kind + "/" + (namespace.isEmpty() ? "" : namespace + "/") + name;
    }
}
