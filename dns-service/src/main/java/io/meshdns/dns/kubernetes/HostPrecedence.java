package io.meshdns.dns.kubernetes;

import io.meshdns.model.CatalogEntry;

import java.util.Comparator;
import java.util.function.Predicate;

/**
 * Which of several ServiceEntries naming one host answers it, as Istio decides: a Kubernetes Service of that name
 * first (the compiler checks), then the oldest entry by {@code (creationTimestamp, name, namespace)}. Entries of this
 * node's own cluster come before remote clusters' (those are the sidecar's own config), and the cluster name breaks
 * the last tie so that every node of a cluster picks the same one. The compiler and {@code explain} both use this.
 */
public final class HostPrecedence {
    /** How {@code explain} states the rule. */
    public static final String RULE = "a Kubernetes Service of the name first, then this cluster's ServiceEntries before remote ones, "
            + "oldest first by (creationTimestamp, name, namespace), as Istio decides";

    private HostPrecedence() {
    }

    public static Comparator<CatalogEntry.ServiceEntry> order(Predicate<String> isLocalCluster) {
        return Comparator.<CatalogEntry.ServiceEntry, Boolean>comparing(se -> !isLocalCluster.test(se.cluster()))
                .thenComparing(CatalogEntry.ServiceEntry::createdAt)
                .thenComparing(CatalogEntry.ServiceEntry::name)
                .thenComparing(CatalogEntry.ServiceEntry::namespace)
                .thenComparing(CatalogEntry.ServiceEntry::cluster);
    }
}
