package io.meshdns.dns.kubernetes;

import io.meshdns.dns.base.Names;
import io.meshdns.dns.snapshot.MeshIndex;

import io.meshdns.dns.snapshot.ZoneContent;
import io.meshdns.model.Catalog;
import io.meshdns.model.PortSpec;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Type;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Pure tests of the catalog → records rules. */
class MeshZoneCompilerTest {
    private static final MeshSettings BASE = MeshSettings.defaults();

    private static MeshZones compile(MeshSettings s) {
        return new MeshZoneCompiler(s).compile(MeshFixture.catalog());
    }

    /** The rdata of every record at {@code name} of {@code type}, across all zones, sorted. */
    private static Set<String> rr(MeshZones z, String name, int type) {
        Name n = Names.absolute(name);
        return z.zones().stream().flatMap(c -> c.records().stream())
                .filter(r -> r.getName().equals(n) && r.getType() == type)
                .map(MeshFixture::rdata).collect(Collectors.toCollection(TreeSet::new));
    }

    private static ZoneContent zone(MeshZones z, String origin) {
        Name o = Names.absolute(origin);
        return z.zones().stream().filter(c -> c.origin().equals(o)).findFirst().orElse(null);
    }

    @Test
    void clusterIpServiceHasEveryClusterIpAndSrvForNamedPortsOnly() {
        MeshZones z = compile(BASE);
        assertEquals(Set.of("10.96.0.10"), rr(z, "web.shop.svc.cluster.local", Type.A));
        assertEquals(Set.of("fd00:96::10"), rr(z, "web.shop.svc.cluster.local", Type.AAAA));
        assertEquals(Set.of("0 100 80 web.shop.svc.cluster.local."), rr(z, "_http._tcp.web.shop.svc.cluster.local", Type.SRV));
        assertEquals(Set.of("0 100 53 kube-dns.default.svc.cluster.local."), rr(z, "_dns._udp.kube-dns.default.svc.cluster.local", Type.SRV));
        long srvCount = zone(z, "cluster.local").records().stream().filter(r -> r.getType() == Type.SRV
                && r.getName().subdomain(Names.absolute("web.shop.svc.cluster.local"))).count();
        assertEquals(1, srvCount, "the unnamed port has no SRV");
    }

    @Test
    void headlessServiceAnswersReadyEndpointsAndPerEndpointNames() {
        MeshZones z = compile(BASE);
        assertEquals(Set.of("10.1.0.5", "10.1.0.6"), rr(z, "db.shop.svc.cluster.local", Type.A), "local wins, unready left out");
        assertEquals(Set.of("10.1.0.5"), rr(z, "db-0.db.shop.svc.cluster.local", Type.A));
        assertEquals(Set.of("10.1.0.6"), rr(z, "10-1-0-6.db.shop.svc.cluster.local", Type.A), "generated hostname");
        assertEquals(Set.of(), rr(z, "db-2.db.shop.svc.cluster.local", Type.A));
        assertEquals(Set.of("0 100 15432 db-0.db.shop.svc.cluster.local.", "0 100 15432 10-1-0-6.db.shop.svc.cluster.local."),
                rr(z, "_pg._tcp.db.shop.svc.cluster.local", Type.SRV), "endpoint port, one SRV per endpoint");
    }

    @Test
    void emptyHeadlessServiceHasNoNameAndExternalNameIsACname() {
        MeshZones z = compile(BASE);
        assertTrue(zone(z, "cluster.local").records().stream().noneMatch(r -> r.getName().equals(Names.absolute("empty.shop.svc.cluster.local"))));
        assertEquals(Set.of("upstream.example."), rr(z, "ext.shop.svc.cluster.local", Type.CNAME));
    }

    @Test
    void ptrOnlyForLocalIpsInNonAuthoritativeReverseZones() {
        MeshZones z = compile(BASE);
        assertEquals(Set.of("web.shop.svc.cluster.local."), rr(z, "10.0.96.10.in-addr.arpa", Type.PTR));
        assertEquals(Set.of("db-0.db.shop.svc.cluster.local."), rr(z, "5.0.1.10.in-addr.arpa", Type.PTR));
        assertEquals(Set.of(), rr(z, "20.0.112.10.in-addr.arpa", Type.PTR), "remote ClusterIPs get no PTR");
        assertFalse(zone(z, "in-addr.arpa").authoritative());
        assertFalse(zone(z, "ip6.arpa").authoritative());
        assertEquals(1, rr(z, "0.1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.6.9.0.0.0.0.d.f.ip6.arpa", Type.PTR).size());
    }

    @Test
    void everyAuthoritativeZoneHasExactlyOneSoaAtItsApexAndTheOverlayNone() {
        int authoritative = 0;
        for (ZoneContent c : compile(BASE.withPlaceholder(new MeshSettings.Placeholder(true, (java.net.Inet4Address) Names.ip("1.1.1.2"),
                List.of(Names.absolute("service.entry")), 60))).zones()) {
            List<Record> soas = c.records().stream().filter(r -> r.getType() == Type.SOA).toList();
            if (!c.authoritative()) {
                assertEquals(List.of(), soas, c.origin() + " owns no zone: a SOA there would answer for a zone we do not serve");
                continue;
            }
            authoritative++;
            assertEquals(1, soas.size(), c.origin().toString());
            assertEquals(c.origin(), soas.get(0).getName());
        }
        assertEquals(3, authoritative, "cluster.local, clusterset.local and the placeholder suffix");
        assertEquals(Set.of("\"" + MeshZoneCompiler.DNS_SCHEMA_VERSION + "\""), rr(compile(BASE), "dns-version.cluster.local", Type.TXT));
    }

    @Test
    void remoteOnlyServiceFollowsThePolicy() {
        assertEquals(Set.of("10.112.0.20", "10.128.0.20"), rr(compile(BASE), "pay.billing.svc.cluster.local", Type.A));
        assertTrue(compile(BASE).index().spreadNames().contains(Names.absolute("pay.billing.svc.cluster.local")));
        MeshZones gw = compile(BASE.withRemotePolicy(MeshSettings.RemoteServicePolicy.GATEWAY));
        assertEquals(Set.of("203.0.113.2"), rr(gw, "pay.billing.svc.cluster.local", Type.A), "north has no gateway");
        MeshZones over = compile(BASE.withRemotePolicy(MeshSettings.RemoteServicePolicy.GATEWAY)
                .withGatewayOverrides(Map.of("north", List.of(Names.ip("203.0.113.9")))));
        assertEquals(Set.of("203.0.113.2", "203.0.113.9"), rr(over, "pay.billing.svc.cluster.local", Type.A));
        MeshZones ph = compile(BASE.withPlaceholder(new MeshSettings.Placeholder(false, (java.net.Inet4Address) Names.ip("1.1.1.2"), List.of(), 60))
                .withRemotePolicy(MeshSettings.RemoteServicePolicy.PLACEHOLDER));
        assertEquals(Set.of("1.1.1.2"), rr(ph, "pay.billing.svc.cluster.local", Type.A));
        assertEquals(Set.of(), rr(ph, "pay.billing.svc.cluster.local", Type.AAAA));
        // the local service still wins under every policy
        assertEquals(Set.of("10.96.0.10"), rr(gw, "web.shop.svc.cluster.local", Type.A));
    }

    @Test
    void clustersetMergesClustersAndPicksOneCluster() {
        MeshZones z = compile(BASE);
        assertEquals(Set.of("10.96.0.10", "10.112.0.10"), rr(z, "web.shop.svc.clusterset.local", Type.A));
        assertEquals(Set.of(), rr(z, "west.web.shop.svc.clusterset.local", Type.A), "MCS 2.3.4 / 2.4.4: no per-cluster name unless switched on");
        assertEquals(Set.of(), rr(z, "east.web.shop.svc.clusterset.local", Type.A), "MCS 2.3.4 / 2.4.4: no per-cluster name unless switched on");
        assertEquals(Set.of("10.200.0.1"), rr(z, "cart.shop.svc.clusterset.local", Type.A), "ServiceImport IP wins");
        assertEquals(Set.of("10.1.0.5", "10.1.0.6", "10.2.0.5"), rr(z, "db.shop.svc.clusterset.local", Type.A));
        assertEquals(Set.of("10.2.0.5"), rr(z, "db-0.west.db.shop.svc.clusterset.local", Type.A));
        assertEquals(Set.of("10.1.0.5"), rr(z, "db-0.east.db.shop.svc.clusterset.local", Type.A));
        assertEquals(Set.of(), rr(z, "west.db.shop.svc.clusterset.local", Type.A), "MCS 2.3.4 / 2.4.4: no per-cluster name unless switched on");
        assertTrue(rr(z, "_pg._tcp.db.shop.svc.clusterset.local", Type.SRV).contains("0 100 5432 db-0.west.db.shop.svc.clusterset.local."));
        assertEquals(Set.of(), rr(z, "ext.shop.svc.clusterset.local", Type.CNAME), "ExternalName is not exported");
        MeshZones opted = compile(BASE.withClustersetPerClusterNames(true));
        assertEquals(Set.of("10.112.0.10"), rr(opted, "west.web.shop.svc.clusterset.local", Type.A));
        assertEquals(Set.of("10.96.0.10"), rr(opted, "east.web.shop.svc.clusterset.local", Type.A));
        assertEquals(Set.of("10.2.0.5"), rr(opted, "west.db.shop.svc.clusterset.local", Type.A));
    }

    @Test
    void podRecordsOnlyInVerifiedModeAndOnlyLocalPods() {
        assertEquals(Set.of(), rr(compile(BASE), "10-1-0-9.shop.pod.cluster.local", Type.A));
        MeshZones v = compile(BASE.withPods(MeshSettings.PodRecords.VERIFIED));
        assertEquals(Set.of("10.1.0.9"), rr(v, "10-1-0-9.shop.pod.cluster.local", Type.A));
        assertEquals(Set.of(), rr(v, "10-2-0-9.shop.pod.cluster.local", Type.A));
        assertEquals("shop", v.index().podNamespaceByIp().get(Names.ip("10.1.0.9")));
    }

    @Test
    void serviceEntryHostsAnswerAddressesThenVipsThenIpEndpoints() {
        MeshZones z = compile(BASE);
        assertEquals(Set.of("192.0.2.10"), rr(z, "api.example.com", Type.A));
        List<Record> wild = z.index().wildcardHosts().get(Names.absolute("wild.example.com"));
        assertEquals(List.of("*.wild.example.com. 192.0.2.10"), wild.stream().map(r -> r.getName() + " " + r.rdataToString()).toList(),
                "a wildcard host outside our zones is answered from the index (the overlay matches exact names only)");
        assertEquals(Set.of("240.240.0.7"), rr(z, "vip.partner.test", Type.A));
        assertEquals(Set.of("2001:2::7"), rr(z, "vip.partner.test", Type.AAAA));
        assertEquals(Set.of("198.51.100.1"), rr(z, "eps.partner.test", Type.A), "hostname endpoints are not addresses");
        ZoneContent host = zone(z, "api.example.com");
        assertNotNull(host);
        assertFalse(host.authoritative());
    }

    @Test
    void placeholderSuffixBecomesAnAuthoritativeZoneHoldingItsServiceEntries() {
        MeshZones z = compile(BASE.withPlaceholder(new MeshSettings.Placeholder(true, (java.net.Inet4Address) Names.ip("1.1.1.2"),
                List.of(Names.absolute("service.entry")), 60)));
        ZoneContent suffix = zone(z, "service.entry");
        assertTrue(suffix.authoritative());
        assertEquals(Set.of("192.0.2.77"), rr(z, "known.service.entry", Type.A));
        assertEquals(1, z.zones().stream().filter(c -> c.records().stream().anyMatch(r -> r.getName().equals(Names.absolute("known.service.entry")))).count());
    }

    @Test
    void localClusterComesFromConfigOverTheCatalog() {
        MeshZones z = compile(BASE.withLocalCluster("west"));
        assertEquals(Set.of("10.112.0.10"), rr(z, "web.shop.svc.cluster.local", Type.A));
        assertEquals(Set.of("10.2.0.5"), rr(z, "db.shop.svc.cluster.local", Type.A));
        assertEquals("shop", z.index().podNamespaceByIp().get(Names.ip("10.2.0.9")));
    }

    @Test
    void compileIsDeterministic() {
        Catalog c = MeshFixture.catalog();
        assertEquals(new MeshZoneCompiler(BASE).compile(c).zones(), new MeshZoneCompiler(BASE).compile(Catalog.of(c.toSnapshot())).zones());
    }

    @Test
    void reusingUnchangedServiceNamesGivesTheSameZonesAsAFreshCompile() {
        Catalog before = MeshFixture.catalog();
        MeshZoneCompiler incremental = new MeshZoneCompiler(BASE);
        incremental.compile(before);
        List<io.meshdns.model.CatalogEntry> changed = new java.util.ArrayList<>(before.values());
        changed.removeIf(e -> e.ref().name().equals("pay") || e.ref().name().equals("db-abc"));
        changed.add(new io.meshdns.model.CatalogEntry.Service("east", "shop", "new", io.meshdns.model.ServiceType.CLUSTER_IP,
                List.of("10.96.0.77"), null, List.of(), List.of()));
        Catalog after = Catalog.of(new io.meshdns.model.CatalogSnapshot(1, 43, before.clusters(), changed));
        MeshZones reused = incremental.compile(after);
        MeshZones fresh = new MeshZoneCompiler(BASE).compile(after);
        assertEquals(fresh.zones(), reused.zones());
        assertEquals(fresh.index(), reused.index());
        assertEquals(Set.of(), rr(reused, "pay.billing.svc.cluster.local", Type.A));
        assertEquals(Set.of("10.96.0.77"), rr(reused, "new.shop.svc.cluster.local", Type.A));
        // a changed cluster list (here: the local cluster) drops every reused name
        MeshZones west = incremental.compile(Catalog.of(new io.meshdns.model.CatalogSnapshot(1, 44, List.of(), changed)));
        assertEquals(new MeshZoneCompiler(BASE).compile(Catalog.of(new io.meshdns.model.CatalogSnapshot(1, 44, List.of(), changed))).zones(),
                west.zones());
    }

    @Test
    void dashedNamesRoundTrip() {
        for (String ip : List.of("10.1.2.3", "fd00::1", "2001:db8:0:1::5")) {
            InetAddress a = Names.ip(ip);
            assertEquals(a, Names.undashed(Names.dashed(a)), ip);
        }
        assertEquals("fd00--1", Names.dashed(Names.ip("fd00::1")));
        assertEquals(null, Names.undashed("www"));
    }

    @Test
    void aStaleRemoteClusterIsDroppedOnlyWhenAskedAndTheLocalOneNever() {
        io.meshdns.model.CatalogSnapshot base = MeshFixture.snapshot();
        List<io.meshdns.model.ClusterStatus> clusters = List.of(
                new io.meshdns.model.ClusterStatus("east", true, true, 1L, List.of()),
                new io.meshdns.model.ClusterStatus("west", false, true, 1L, List.of()),
                new io.meshdns.model.ClusterStatus("north", false, false, 1L, List.of()));
        io.meshdns.model.Catalog stale = io.meshdns.model.Catalog.of(new io.meshdns.model.CatalogSnapshot(base.formatVersion(),
                base.version(), clusters, base.entries()));
        MeshZones kept = new MeshZoneCompiler(BASE.withLocalCluster("east")).compile(stale);
        assertEquals(Set.of("10.112.0.20", "10.128.0.20"), rr(kept, "pay.billing.svc.cluster.local", Type.A), "keep: last known state");
        MeshZones dropped = new MeshZoneCompiler(BASE.withLocalCluster("east").withDropStaleClusters(true)).compile(stale);
        assertEquals(Set.of("10.128.0.20"), rr(dropped, "pay.billing.svc.cluster.local", Type.A), "west is stale: only north answers");
        assertEquals(Set.of("10.96.0.10"), rr(dropped, "web.shop.svc.clusterset.local", Type.A), "west's copy is gone from clusterset too");
        assertEquals(Set.of("10.96.0.10"), rr(dropped, "web.shop.svc.cluster.local", Type.A), "the local cluster is never dropped");
    }

    /**
     * {@code unhealthy-clusters=drop}: a remote cluster whose gateway discovery's probes find down leaves the answers of
     * names a healthy cluster also answers; a name only unhealthy clusters answer keeps them (fail-open); the local
     * cluster is never left out; {@code keep} answers as if nothing were known.
     */
    @Test
    void anUnhealthyRemoteClusterLeavesAnswersOthersCanGiveAndFailsOpenOtherwise() {
        io.meshdns.model.CatalogSnapshot base = MeshFixture.snapshot();
        List<io.meshdns.model.ClusterStatus> westDown = List.of(
                new io.meshdns.model.ClusterStatus("east", true, false, 1L, List.of(), false, 1L),
                new io.meshdns.model.ClusterStatus("west", false, false, 1L, List.of(), false, 1L),
                new io.meshdns.model.ClusterStatus("north", false, false, 1L, List.of(), true, 1L));
        io.meshdns.model.Catalog c = io.meshdns.model.Catalog.of(new io.meshdns.model.CatalogSnapshot(base.formatVersion(),
                base.version(), westDown, base.entries()));
        MeshSettings drop = BASE.withLocalCluster("east").withDropUnhealthyClusters(true);
        MeshZones kept = new MeshZoneCompiler(BASE.withLocalCluster("east")).compile(c);
        assertEquals(Set.of("10.112.0.20", "10.128.0.20"), rr(kept, "pay.billing.svc.cluster.local", Type.A), "keep: health not read");
        MeshZones dropped = new MeshZoneCompiler(drop).compile(c);
        assertEquals(Set.of("10.128.0.20"), rr(dropped, "pay.billing.svc.cluster.local", Type.A), "west's gateway is down: north answers");
        assertEquals(Set.of("10.96.0.10"), rr(dropped, "web.shop.svc.clusterset.local", Type.A), "west's copy leaves clusterset");
        assertEquals(Set.of("10.96.0.10"), rr(dropped, "web.shop.svc.cluster.local", Type.A), "the local cluster is never left out");

        List<io.meshdns.model.ClusterStatus> bothDown = List.of(westDown.get(0), westDown.get(1),
                new io.meshdns.model.ClusterStatus("north", false, true, 1L, List.of(), null, 0L));
        MeshZones failOpen = new MeshZoneCompiler(drop).compile(io.meshdns.model.Catalog.of(new io.meshdns.model.CatalogSnapshot(
                base.formatVersion(), base.version(), bothDown, base.entries())));
        assertEquals(Set.of("10.112.0.20", "10.128.0.20"), rr(failOpen, "pay.billing.svc.cluster.local", Type.A),
                "west down, north stale: nobody healthy answers pay, so both do");
    }

    @Test
    void exportScopesAreCompiledIntoTheIndex() {
        MeshZones z = compile(BASE.withLocalCluster("east"));
        MeshIndex idx = z.index();
        assertTrue(idx.visible(Names.absolute("internal.shop.svc.cluster.local"), "shop"));
        assertTrue(!idx.visible(Names.absolute("internal.shop.svc.cluster.local"), "default"));
        assertTrue(!idx.visible(Names.absolute("_http._tcp.internal.shop.svc.cluster.local"), "default"), "a Service's scope covers its subtree");
        assertTrue(!idx.visible(Names.absolute("internal.shop.svc.clusterset.local"), null), "an unknown client sees only '*'");
        assertTrue(idx.visible(Names.absolute("for-default.service.entry"), "default"));
        assertTrue(!idx.visible(Names.absolute("for-default.service.entry"), "shop"));
        assertTrue(idx.visible(Names.absolute("web.shop.svc.cluster.local"), null), "no exportTo: the default '*'");
        assertEquals(null, idx.exportScopeOf(Names.absolute("api.example.com")));
        // The mesh-wide default applies to objects that set none.
        MeshIndex own = compile(BASE.withLocalCluster("east").withDefaultExportTo(List.of("."))).index();
        assertTrue(!own.visible(Names.absolute("web.shop.svc.cluster.local"), "default"));
        assertTrue(own.visible(Names.absolute("web.shop.svc.cluster.local"), "shop"));
        assertTrue(own.visible(Names.absolute("for-default.service.entry"), "default"), "an explicit exportTo wins over the default");
    }

    @Test
    void oneServiceEntryAnswersAHostThatSeveralName() {
        io.meshdns.model.CatalogSnapshot base = MeshFixture.snapshot();
        List<io.meshdns.model.CatalogEntry> entries = new java.util.ArrayList<>(base.entries());
        PortSpec http = new PortSpec("http", "TCP", 80);
        // Entries for one host, each with its own Istio VIP: the local cluster's first, then Istio's order, the oldest by
        // (creationTimestamp, name, namespace); without timestamps (manifests) name, then namespace.
        entries.add(new io.meshdns.model.CatalogEntry.ServiceEntry("west", "aaa", "first-by-name", List.of("dup.partner.test"), List.of(), "DNS",
                List.of(), List.of(http), java.util.Map.of("dup.partner.test", List.of("240.240.0.1"))));
        entries.add(new io.meshdns.model.CatalogEntry.ServiceEntry("east", "zzz", "local", List.of("dup.partner.test"), List.of(), "DNS",
                List.of(), List.of(http), java.util.Map.of("dup.partner.test", List.of("240.240.0.2"))));
        entries.add(new io.meshdns.model.CatalogEntry.ServiceEntry("east", "zzz", "next", List.of("dup.partner.test"), List.of(), "DNS",
                List.of(), List.of(http), java.util.Map.of("dup.partner.test", List.of("240.240.0.3"))));
        assertEquals(Set.of("240.240.0.2"), rr(compile(base, entries), "dup.partner.test", Type.A));
        // A remote entry with its own spec.addresses does not outrank the local one: the sidecar follows its own cluster's.
        entries.add(new io.meshdns.model.CatalogEntry.ServiceEntry("west", "zzz", "static", List.of("dup.partner.test"), List.of("192.0.2.99"),
                "STATIC", List.of(), List.of(http), java.util.Map.of()));
        assertEquals(Set.of("240.240.0.2"), rr(compile(base, entries), "dup.partner.test", Type.A));
        // With creation times (as from an API server): the oldest wins, whatever its name and namespace; an entry with
        // no address at all is passed over.
        entries = new java.util.ArrayList<>(base.entries());
        entries.add(new io.meshdns.model.CatalogEntry.ServiceEntry("east", "zzz", "zz-old", List.of("dup.partner.test"), List.of("192.0.2.98"),
                "STATIC", List.of(), List.of(http), java.util.Map.of(), null, null, false, "2020-01-01T00:00:00Z"));
        entries.add(new io.meshdns.model.CatalogEntry.ServiceEntry("east", "zzz", "zz-oldest-empty", List.of("dup.partner.test"), List.of(),
                "NONE", List.of(), List.of(http), java.util.Map.of(), null, null, false, "2019-01-01T00:00:00Z"));
        entries.add(new io.meshdns.model.CatalogEntry.ServiceEntry("east", "aaa", "zz-newer", List.of("dup.partner.test"), List.of("192.0.2.97"),
                "STATIC", List.of(), List.of(http), java.util.Map.of(), null, null, false, "2021-01-01T00:00:00Z"));
        assertEquals(Set.of("192.0.2.98"), rr(compile(base, entries), "dup.partner.test", Type.A));
    }

    private static MeshZones compile(io.meshdns.model.CatalogSnapshot base, List<io.meshdns.model.CatalogEntry> entries) {
        return new MeshZoneCompiler(BASE.withLocalCluster("east")).compile(io.meshdns.model.Catalog.of(
                new io.meshdns.model.CatalogSnapshot(base.formatVersion(), base.version(), base.clusters(), entries)));
    }

    @Test
    void thePlaceholderFollowsItsServiceLiveAndFallsBackToTheFixedAddress() {
        MeshSettings settings = BASE.withLocalCluster("east").withPlaceholder(new MeshSettings.Placeholder(true,
                (java.net.Inet4Address) Names.ip("1.1.1.2"), List.of(), 60, "shop/web"));
        MeshAnswerPolicy policy = new MeshAnswerPolicy(settings);
        MeshZoneCompiler compiler = new MeshZoneCompiler(settings);
        io.meshdns.model.Catalog c1 = MeshFixture.catalog();
        MeshIndex idx = compiler.compile(c1).index();
        Name lazy = Names.absolute("lazy.shop.svc.cluster.local");
        assertEquals(List.of("10.96.0.10"), addresses(policy.onNameError(idx, lazy, Type.A)), "the Service's ClusterIP, not the fixed one");
        assertEquals(List.of("fd00:96:0:0:0:0:0:10"), addresses(policy.onNameError(idx, lazy, Type.AAAA)), "dual stack: AAAA too");

        // The Service moves: the next index follows without a restart.
        io.meshdns.model.ObjectRef web = new io.meshdns.model.ObjectRef("east", io.meshdns.model.Kind.SERVICE, "shop", "web");
        io.meshdns.model.Catalog c2 = c1.apply(new io.meshdns.model.CatalogDelta(c1.version(), c1.version() + 1, null, List.of(
                new io.meshdns.model.CatalogEntry.Service("east", "shop", "web", io.meshdns.model.ServiceType.CLUSTER_IP,
                        List.of("10.96.0.99"), null, List.of(), List.of())), List.of()));
        idx = compiler.update(c2, List.of(web)).index();
        assertEquals(List.of("10.96.0.99"), addresses(policy.onNameError(idx, lazy, Type.A)));

        // Gone in east: west's copy (a remote cluster's ClusterIP) answers; gone everywhere: the fixed address.
        io.meshdns.model.Catalog c3 = c2.apply(new io.meshdns.model.CatalogDelta(c2.version(), c2.version() + 1, null, List.of(), List.of(web)));
        idx = compiler.update(c3, List.of(web)).index();
        assertEquals(List.of("10.112.0.10"), addresses(policy.onNameError(idx, lazy, Type.A)));
        io.meshdns.model.ObjectRef westWeb = new io.meshdns.model.ObjectRef("west", io.meshdns.model.Kind.SERVICE, "shop", "web");
        io.meshdns.model.Catalog c4 = c3.apply(new io.meshdns.model.CatalogDelta(c3.version(), c3.version() + 1, null, List.of(), List.of(westWeb)));
        idx = compiler.update(c4, List.of(westWeb)).index();
        assertEquals(List.of("1.1.1.2"), addresses(policy.onNameError(idx, lazy, Type.A)));
        assertEquals(compiler.compile(c4).index(), idx, "incremental index equals a whole compile");
    }

    private static List<String> addresses(MeshAnswerPolicy.Synthesized s) {
        assertNotNull(s, "a placeholder answer");
        List<String> out = new java.util.ArrayList<>();
        for (Record r : s.records()) out.add(r.rdataToString());
        return out;
    }
}
