package io.meshdns.dns.kubernetes;

import io.meshdns.dns.snapshot.MeshIndex.AddressLocality;
import org.xbill.DNS.AAAARecord;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.Record;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The order of a name's addresses by where they sit, as a node sees it: its own zone first (an endpoint whose
 * topology hint names the zone, or, without a hint, an endpoint in the zone), then the rest of the local cluster,
 * then other clusters. Clients take the first address, so this is what keeps traffic in the zone and in the
 * cluster (Submariner Lighthouse prefers the local cluster the same way; kube-proxy's topology-aware routing keeps
 * it in the zone). Within one rank the spread setting's order stays. Pure.
 */
final class LocalityOrder {
    private LocalityOrder() {
    }

    /** 0: this node's zone in the local cluster; 1: the local cluster; 2: elsewhere (or unknown). */
    static int rank(AddressLocality where, MeshSettings.Locality.Order order, String nodeZone) {
        if (where == null || !where.localCluster()) return 2;
        if (order != MeshSettings.Locality.Order.ZONE || nodeZone == null) return 1;
        boolean inZone = where.forZones().isEmpty() ? nodeZone.equals(where.zone()) : where.forZones().contains(nodeZone);
        return inZone ? 0 : 1;
    }

    /** {@code answer} stably sorted by rank: the order within a rank is kept. */
    static List<Record> order(List<Record> answer, Map<InetAddress, AddressLocality> localities,
                              MeshSettings.Locality.Order order, String nodeZone) {
        List<Record> out = new ArrayList<>(answer);
        if (order == MeshSettings.Locality.Order.NONE) return out;
        out.sort(Comparator.comparingInt(r -> rank(localities.get(address(r)), order, nodeZone)));
        return out;
    }

    private static InetAddress address(Record r) {
        if (r instanceof ARecord a) return a.getAddress();
        if (r instanceof AAAARecord a) return a.getAddress();
        return null;
    }
}
