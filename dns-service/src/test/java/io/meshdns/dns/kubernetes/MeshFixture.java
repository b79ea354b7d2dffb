package io.meshdns.dns.kubernetes;

import io.meshdns.model.Catalog;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.CatalogSnapshot;
import io.meshdns.model.ClusterStatus;
import io.meshdns.model.EndpointAddress;
import io.meshdns.model.PortSpec;
import io.meshdns.model.ServiceType;

import java.util.List;
import java.util.Map;

/**
 * A two-cluster catalog ("east" local, "west" remote) exercising every naming rule; used by the pure
 * compile tests and, written to a snapshot file, by the UDP conformance suite.
 */
public final class MeshFixture {
    private MeshFixture() {
    }

    public static CatalogSnapshot snapshot() {
        PortSpec http = new PortSpec("http", "TCP", 80);
        PortSpec dns = new PortSpec("dns", "UDP", 53);
        PortSpec unnamed = new PortSpec("", "TCP", 9000);
        List<CatalogEntry> e = List.of(
                new CatalogEntry.Namespace("east", "default"),
                new CatalogEntry.Namespace("east", "shop"),
                new CatalogEntry.Namespace("west", "billing"),
                new CatalogEntry.Namespace("west", "shop"),
                // ClusterIP, dual stack, named + unnamed ports
                new CatalogEntry.Service("east", "shop", "web", ServiceType.CLUSTER_IP, List.of("10.96.0.10", "fd00:96::10"), null,
                        List.of(http, unnamed), List.of()),
                // the same name in west: local wins for cluster.local, merged for clusterset.local
                new CatalogEntry.Service("west", "shop", "web", ServiceType.CLUSTER_IP, List.of("10.112.0.10"), null,
                        List.of(http), List.of()),
                // headless with endpoints: one with hostname, one without, one not ready
                new CatalogEntry.Service("east", "shop", "db", ServiceType.CLUSTER_IP, List.of(), null, List.of(new PortSpec("pg", "TCP", 5432)), List.of()),
                new CatalogEntry.EndpointSlice("east", "shop", "db-abc", "db", "IPv4", List.of(
                        new EndpointAddress(List.of("10.1.0.5"), "db-0", true, "n1", "db-0"),
                        new EndpointAddress(List.of("10.1.0.6"), null, true, "n1", "db-x"),
                        new EndpointAddress(List.of("10.1.0.7"), "db-2", false, "n1", "db-2")),
                        List.of(new PortSpec("pg", "TCP", 15432))),
                new CatalogEntry.Service("west", "shop", "db", ServiceType.CLUSTER_IP, List.of(), null, List.of(new PortSpec("pg", "TCP", 5432)), List.of()),
                new CatalogEntry.EndpointSlice("west", "shop", "db-w", "db", "IPv4", List.of(
                        new EndpointAddress(List.of("10.2.0.5"), "db-0", true, "w1", "db-0")), List.of(new PortSpec("pg", "TCP", 5432))),
                // empty headless
                new CatalogEntry.Service("east", "shop", "empty", ServiceType.CLUSTER_IP, List.of(), null, List.of(), List.of()),
                // ExternalName
                new CatalogEntry.Service("east", "shop", "ext", ServiceType.EXTERNAL_NAME, List.of(), "upstream.example.", List.of(), List.of()),
                // remote only, in two remote-ish clusters (west, north)
                new CatalogEntry.Service("west", "billing", "pay", ServiceType.CLUSTER_IP, List.of("10.112.0.20"), null, List.of(http), List.of()),
                new CatalogEntry.Service("north", "billing", "pay", ServiceType.CLUSTER_IP, List.of("10.128.0.20"), null, List.of(http), List.of()),
                // DNS-ish service with a UDP named port
                new CatalogEntry.Service("east", "default", "kube-dns", ServiceType.CLUSTER_IP, List.of("10.96.0.53"), null, List.of(dns), List.of()),
                new CatalogEntry.Pod("east", "shop", "client-0", List.of("127.0.0.1")),
                new CatalogEntry.Pod("east", "shop", "web-0", List.of("10.1.0.9")),
                new CatalogEntry.Pod("west", "shop", "web-w", List.of("10.2.0.9")),
                new CatalogEntry.ServiceEntry("east", "shop", "api", List.of("api.example.com", "*.wild.example.com"),
                        List.of("192.0.2.10"), "STATIC", List.of(), List.of(http), Map.of()),
                new CatalogEntry.ServiceEntry("east", "shop", "vip", List.of("vip.partner.test"), List.of(), "DNS", List.of(),
                        List.of(http), Map.of("vip.partner.test", List.of("240.240.0.7", "2001:2::7"))),
                new CatalogEntry.ServiceEntry("east", "shop", "eps", List.of("eps.partner.test"), List.of(), "DNS",
                        List.of("198.51.100.1", "backend.partner.test"), List.of(http), Map.of()),
                new CatalogEntry.ServiceEntry("east", "shop", "lazy", List.of("known.service.entry"), List.of("192.0.2.77"), "STATIC",
                        List.of(), List.of(http), Map.of()),
                // a wildcard host without addresses: the one VIP discovery allocated answers every name below it
                new CatalogEntry.ServiceEntry("east", "shop", "dyn", List.of("*.dyn.example"), List.of(), "DNS", List.of(),
                        List.of(http), Map.of("*.dyn.example", List.of("240.240.0.9"))),
                // an exact host under that wildcard keeps its own address
                new CatalogEntry.ServiceEntry("east", "shop", "dyn-api", List.of("api.dyn.example"), List.of("192.0.2.55"), "STATIC",
                        List.of(), List.of(http), Map.of()),
                // one host, two entries: the older answers (Istio), whatever their namespaces or names
                new CatalogEntry.ServiceEntry("east", "shop", "zeta", List.of("dup.example"), List.of("192.0.2.61"), "STATIC",
                        List.of(), List.of(http), Map.of(), null, null, false, "2024-01-01T00:00:00Z"),
                new CatalogEntry.ServiceEntry("east", "default", "alpha", List.of("dup.example"), List.of("192.0.2.62"), "STATIC",
                        List.of(), List.of(http), Map.of(), null, null, false, "2025-06-01T00:00:00Z"),
                // a wildcard over a Kubernetes zone would shadow its Services and NXDOMAINs: refused
                new CatalogEntry.ServiceEntry("east", "shop", "shadow", List.of("*.shop.svc.cluster.local"), List.of("192.0.2.66"),
                        "STATIC", List.of(), List.of(http), Map.of()),
                new CatalogEntry.ServiceImport("east", "shop", "cart", "ClusterSetIP", List.of("10.200.0.1"), List.of(http)),
                // Kubernetes DNS spec 2.1: a Service that tolerates unready endpoints publishes them all
                new CatalogEntry.Service("east", "shop", "tolerant", ServiceType.CLUSTER_IP, List.of(), null, List.of(), List.of(),
                        List.of(), true),
                new CatalogEntry.EndpointSlice("east", "shop", "tolerant-1", "tolerant", "IPv4", List.of(
                        new EndpointAddress(List.of("10.1.0.20"), "tolerant-0", false, "n1", "tolerant-0")), List.of()),
                // no ready endpoint here, a ready one in west: answered from west (failover-to-remote)
                new CatalogEntry.Service("east", "shop", "orders", ServiceType.CLUSTER_IP, List.of(), null, List.of(), List.of()),
                new CatalogEntry.EndpointSlice("east", "shop", "orders-1", "orders", "IPv4", List.of(
                        new EndpointAddress(List.of("10.1.0.30"), null, false, "n1", "orders-0")), List.of()),
                new CatalogEntry.Service("west", "shop", "orders", ServiceType.CLUSTER_IP, List.of(), null, List.of(), List.of()),
                new CatalogEntry.EndpointSlice("west", "shop", "orders-w", "orders", "IPv4", List.of(
                        new EndpointAddress(List.of("10.2.0.30"), null, true, "w1", "orders-w")), List.of()),
                // exportTo: a Service and a ServiceEntry seen only from their own namespace, one seen from "default" only
                new CatalogEntry.Service("east", "shop", "internal", ServiceType.CLUSTER_IP, List.of("10.96.0.70"), null, List.of(http),
                        List.of(), List.of("."), false),
                new CatalogEntry.ServiceEntry("east", "shop", "private", List.of("hidden.example", "private.service.entry"),
                        List.of("192.0.2.80"), "STATIC", List.of(), List.of(http), Map.of(), Map.of(), List.of("."), false),
                new CatalogEntry.ServiceEntry("east", "shop", "for-default", List.of("for-default.service.entry"),
                        List.of("192.0.2.81"), "STATIC", List.of(), List.of(http), Map.of(), Map.of(), List.of("default"), false),
                // two pods of two namespaces on distinct loopback addresses: the per-client rows query from them
                new CatalogEntry.Pod("east", "shop", "client-2", List.of("127.0.0.2")),
                new CatalogEntry.Pod("east", "default", "client-3", List.of("127.0.0.3")),
                new CatalogEntry.Service("west", "shop", "cart", ServiceType.CLUSTER_IP, List.of("10.112.0.30"), null, List.of(http), List.of()));
        List<ClusterStatus> clusters = List.of(
                new ClusterStatus("east", true, false, 1L, List.of("203.0.113.1")),
                new ClusterStatus("west", false, false, 1L, List.of("203.0.113.2")),
                new ClusterStatus("north", false, false, 1L, List.of()));
        return new CatalogSnapshot(CatalogSnapshot.FORMAT_VERSION, 42, clusters, e);
    }

    public static Catalog catalog() {
        return Catalog.of(snapshot());
    }

    /**
     * A record's data as the conformance tables write it: AAAA compressed, TXT with every string quoted (as the
     * Kubernetes DNS specification prints {@code "1.1.0"}; dnsjava 3.7 leaves strings without blanks unquoted).
     */
    static String rdata(org.xbill.DNS.Record r) {
        if (r instanceof org.xbill.DNS.AAAARecord a) {
            return io.meshdns.dns.base.Names.compressedV6(a.getAddress());
        }
        if (r instanceof org.xbill.DNS.TXTRecord t) {
            return String.join(" ", t.getStrings().stream().map(s -> "\"" + s + "\"").toList());
        }
        return r.rdataToString();
    }
}
