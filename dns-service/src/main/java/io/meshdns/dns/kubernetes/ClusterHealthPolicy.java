package io.meshdns.dns.kubernetes;

import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which clusters leave the answers of one name under {@code meshdns.dns.multicluster.unhealthy-clusters=drop}: the
 * unhealthy ones (east-west gateway down, or stale), but only while at least one healthy cluster also answers the
 * name. A name that only unhealthy clusters answer keeps them all (fail-open, as Submariner Lighthouse does): an
 * answer that may fail beats a certain NXDOMAIN. The local cluster is never in {@code unhealthy}. Pure.
 */
final class ClusterHealthPolicy {
    private ClusterHealthPolicy() {
    }

    static Set<String> leftOut(Set<String> unhealthy, Collection<String> clustersOfTheName) {
        if (unhealthy.isEmpty()) return Set.of();
        Set<String> out = new TreeSet<>();
        boolean anyHealthy = false;
        for (String cluster : clustersOfTheName) {
            if (unhealthy.contains(cluster)) out.add(cluster);
            else anyHealthy = true;
        }
        return anyHealthy ? out : Set.of();
    }
}
