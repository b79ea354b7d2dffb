package io.meshdns.dns.kubernetes;

import io.meshdns.model.ClusterStatus;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which clusters leave the answers of one name under {@code meshdns.dns.multicluster.unhealthy-clusters=drop}: the
 * unhealthy ones (east-west gateway down, or stale), but only while at least one healthy cluster also answers the
 * name. A name that only unhealthy clusters answer keeps them all (fail-open, as Submariner Lighthouse does): an
 * answer that may fail beats a certain NXDOMAIN. The local cluster is never in {@code unhealthy}. Pure.
 */
public final class ClusterHealthPolicy {
    private ClusterHealthPolicy() {
    }

    /** The unhealthy remote clusters of {@code clusters}, each with why (for {@code explain}); {@code local} never. */
    public static Map<String, String> unhealthy(List<ClusterStatus> clusters, String local) {
        Map<String, String> out = new LinkedHashMap<>();
        for (ClusterStatus c : clusters) {
            if (c.local() || c.name().equals(local)) continue;
            if (Boolean.FALSE.equals(c.gatewayHealthy())) out.put(c.name(), "its east-west gateway is down");
            else if (c.stale()) out.put(c.name(), "its API stream is stale");
        }
        return out;
    }

    public static Set<String> leftOut(Set<String> unhealthy, Collection<String> clustersOfTheName) {
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
