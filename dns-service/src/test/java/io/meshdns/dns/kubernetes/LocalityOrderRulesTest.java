package io.meshdns.dns.kubernetes;

import io.meshdns.dns.base.Names;
import io.meshdns.dns.snapshot.MeshIndex;
import io.meshdns.dns.snapshot.MeshIndex.AddressLocality;
import io.meshdns.model.Catalog;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.CatalogSnapshot;
import io.meshdns.model.ClusterStatus;
import io.meshdns.model.EndpointAddress;
import io.meshdns.model.PortSpec;
import io.meshdns.model.ServiceType;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.meshdns.dns.kubernetes.MeshSettings.Locality.Order.CLUSTER;
import static io.meshdns.dns.kubernetes.MeshSettings.Locality.Order.NONE;
import static io.meshdns.dns.kubernetes.MeshSettings.Locality.Order.ZONE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Where an address ranks for a node, and what the compiler files for the answer-time order. */
class LocalityOrderRulesTest {
    private static final AddressLocality HINTED_HERE = new AddressLocality(true, "zone-b", List.of("zone-a"));
    private static final AddressLocality IN_ZONE = new AddressLocality(true, "zone-a", List.of());
    private static final AddressLocality HINTED_AWAY = new AddressLocality(true, "zone-a", List.of("zone-b"));
    private static final AddressLocality OTHER_ZONE = new AddressLocality(true, "zone-b", List.of());
    private static final AddressLocality REMOTE_SAME_ZONE_NAME = new AddressLocality(false, "zone-a", List.of("zone-a"));

    @Test
    void aHintDecidesOverTheEndpointsOwnZoneAndRemoteClustersComeLast() {
        assertEquals(0, LocalityOrder.rank(HINTED_HERE, ZONE, "zone-a"), "hinted for our zone, though it sits in another");
        assertEquals(0, LocalityOrder.rank(IN_ZONE, ZONE, "zone-a"), "no hint: its zone is ours");
        assertEquals(1, LocalityOrder.rank(HINTED_AWAY, ZONE, "zone-a"), "in our zone but hinted elsewhere: the hint wins");
        assertEquals(1, LocalityOrder.rank(OTHER_ZONE, ZONE, "zone-a"));
        assertEquals(2, LocalityOrder.rank(REMOTE_SAME_ZONE_NAME, ZONE, "zone-a"), "zone names of another cluster mean nothing here");
        assertEquals(1, LocalityOrder.rank(IN_ZONE, ZONE, null), "the node's zone unknown: local cluster only");
        assertEquals(1, LocalityOrder.rank(IN_ZONE, CLUSTER, "zone-a"), "order=cluster ignores zones");
        assertEquals(2, LocalityOrder.rank(null, ZONE, "zone-a"), "an address without a known locality: last");
    }

    @Test
    void theOrderIsStableWithinARankAndNoneKeepsTheGivenOrder() {
        List<Record> answer = List.of(a("10.0.0.4"), a("10.0.0.3"), a("10.0.0.2"), a("10.0.0.1"));
        Map<InetAddress, AddressLocality> where = Map.of(
                Names.ip("10.0.0.4"), REMOTE_SAME_ZONE_NAME, Names.ip("10.0.0.3"), OTHER_ZONE,
                Names.ip("10.0.0.2"), IN_ZONE, Names.ip("10.0.0.1"), HINTED_HERE);
        assertEquals(List.of("10.0.0.2", "10.0.0.1", "10.0.0.3", "10.0.0.4"), ips(LocalityOrder.order(answer, where, ZONE, "zone-a")));
        assertEquals(List.of("10.0.0.3", "10.0.0.2", "10.0.0.1", "10.0.0.4"), ips(LocalityOrder.order(answer, where, CLUSTER, "zone-a")));
        assertEquals(List.of("10.0.0.4", "10.0.0.3", "10.0.0.2", "10.0.0.1"), ips(LocalityOrder.order(answer, where, NONE, "zone-a")));
    }

    @Test
    void theCompilerFilesLocalitiesWhereTheyDifferAndLearnsTheNodesZone() {
        PortSpec pg = new PortSpec("pg", "TCP", 5432);
        List<CatalogEntry> entries = new ArrayList<>(List.of(
                new CatalogEntry.Namespace("east", "data"),
                new CatalogEntry.Service("east", "data", "db", ServiceType.CLUSTER_IP, List.of(), null, List.of(pg), List.of()),
                new CatalogEntry.EndpointSlice("east", "data", "db-1", "db", "IPv4", List.of(
                        new EndpointAddress(List.of("10.0.1.1"), null, true, "node-1", "db-1", "zone-a", List.of()),
                        new EndpointAddress(List.of("10.0.1.2"), null, true, "node-2", "db-2", "zone-b", List.of())), List.of(pg)),
                new CatalogEntry.Service("west", "data", "db", ServiceType.CLUSTER_IP, List.of(), null, List.of(pg), List.of()),
                new CatalogEntry.EndpointSlice("west", "data", "db-w", "db", "IPv4", List.of(
                        new EndpointAddress(List.of("10.1.1.1"), null, true, "node-1", "db-w", "zone-z", List.of())), List.of(pg)),
                // one zone only: nothing to order
                new CatalogEntry.Service("east", "data", "solo", ServiceType.CLUSTER_IP, List.of(), null, List.of(pg), List.of()),
                new CatalogEntry.EndpointSlice("east", "data", "solo-1", "solo", "IPv4", List.of(
                        new EndpointAddress(List.of("10.0.2.1"), null, true, "node-2", "s-1", "zone-b", List.of()),
                        new EndpointAddress(List.of("10.0.2.2"), null, true, "node-3", "s-2", "zone-b", List.of())), List.of(pg))));
        Catalog catalog = Catalog.of(new CatalogSnapshot(1, 1, List.of(new ClusterStatus("east", true, false, 0, List.of()),
                new ClusterStatus("west", false, false, 0, List.of())), entries));
        MeshSettings settings = MeshSettings.defaults().withLocality(new MeshSettings.Locality(ZONE, null, "node-1"));
        MeshIndex idx = new MeshZoneCompiler(settings).compile(catalog).index();

        assertEquals("zone-a", idx.learnedZone(), "node-1's zone from east's endpoint there (west's node-1 is another node)");
        Map<InetAddress, AddressLocality> local = idx.localities().get(name("db.data.svc.cluster.local"));
        assertEquals(new AddressLocality(true, "zone-a", List.of()), local.get(Names.ip("10.0.1.1")));
        assertEquals(new AddressLocality(true, "zone-b", List.of()), local.get(Names.ip("10.0.1.2")));
        Map<InetAddress, AddressLocality> set = idx.localities().get(name("db.data.svc.clusterset.local"));
        assertEquals(3, set.size());
        assertFalse(set.get(Names.ip("10.1.1.1")).localCluster());
        assertNull(idx.localities().get(name("solo.data.svc.cluster.local")), "every address in one zone: no order to keep");

        MeshIndex fixed = new MeshZoneCompiler(MeshSettings.defaults().withLocality(new MeshSettings.Locality(ZONE, "zone-q", "node-1")))
                .compile(catalog).index();
        assertNull(fixed.learnedZone(), "a configured zone is not learned");
    }

    private static Name name(String s) {
        return Names.absolute(s);
    }

    private static Record a(String ip) {
        return MeshZoneCompiler.address(name("x.example"), 5, Names.ip(ip));
    }

    private static List<String> ips(List<Record> records) {
        return records.stream().map(r -> r.rdataToString()).toList();
    }
}
