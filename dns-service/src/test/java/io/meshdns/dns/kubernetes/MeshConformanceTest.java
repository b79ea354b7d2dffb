package io.meshdns.dns.kubernetes;

import io.meshdns.dns.DnsClient;
import io.meshdns.dns.server.DnsServer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.xbill.DNS.AAAARecord;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The mesh naming conformance table over real UDP: dnsjava's SimpleResolver against the running dns-service, whose
 * catalog comes from the {@link MeshFixture} snapshot file, forwarding to a real Knot. The client (127.0.0.1) is
 * pod {@code shop/client-0} in the fixture, so autopath applies to it; 127.0.0.2 is no pod.
 */
@QuarkusTest
@TestProfile(MeshConformanceProfile.class)
class MeshConformanceTest {
    private static final String NONE = "NODATA";

    @Inject
    DnsServer server;
    DnsClient client;

    @BeforeEach
    void setUp() {
        client = new DnsClient(server.boundPort());
    }

    /** name, type, rcode, the answer's rdata (sorted; "NODATA" = empty answer with the zone SOA in authority). */
    record Row(String rule, String name, int type, int rcode, Set<String> answer) {
        @Override
        public String toString() {
            return rule + ": " + name + " " + Type.string(type);
        }
    }

    static Row ok(String rule, String name, int type, String... rdata) {
        return new Row(rule, name, type, Rcode.NOERROR, new TreeSet<>(List.of(rdata)));
    }

    static Row nodata(String rule, String name, int type) {
        return new Row(rule, name, type, Rcode.NOERROR, Set.of(NONE));
    }

    static Row nxdomain(String rule, String name, int type) {
        return new Row(rule, name, type, Rcode.NXDOMAIN, Set.of());
    }

    static Stream<Row> table() {
        return Stream.of(
                ok("ClusterIP A", "web.shop.svc.cluster.local.", Type.A, "10.96.0.10"),
                ok("ClusterIP AAAA (dual stack)", "web.shop.svc.cluster.local.", Type.AAAA, "fd00:96::10"),
                nodata("existing name, other type", "web.shop.svc.cluster.local.", Type.TXT),
                ok("SRV for a named port", "_http._tcp.web.shop.svc.cluster.local.", Type.SRV, "0 100 80 web.shop.svc.cluster.local."),
                ok("SRV over UDP port", "_dns._udp.kube-dns.default.svc.cluster.local.", Type.SRV, "0 100 53 kube-dns.default.svc.cluster.local."),
                nxdomain("no SRV for the unnamed port's protocol", "_http._udp.web.shop.svc.cluster.local.", Type.SRV),
                ok("headless: ready endpoints only", "db.shop.svc.cluster.local.", Type.A, "10.1.0.5", "10.1.0.6"),
                ok("headless: endpoint hostname", "db-0.db.shop.svc.cluster.local.", Type.A, "10.1.0.5"),
                ok("headless: generated endpoint name", "10-1-0-6.db.shop.svc.cluster.local.", Type.A, "10.1.0.6"),
                nxdomain("headless: unready endpoint", "db-2.db.shop.svc.cluster.local.", Type.A),
                ok("headless SRV: one per endpoint, endpoint port", "_pg._tcp.db.shop.svc.cluster.local.", Type.SRV,
                        "0 100 15432 10-1-0-6.db.shop.svc.cluster.local.", "0 100 15432 db-0.db.shop.svc.cluster.local."),
                nxdomain("empty headless service (never a placeholder)", "empty.shop.svc.cluster.local.", Type.A),
                ok("ExternalName: CNAME chased through the forwarder", "ext.shop.svc.cluster.local.", Type.A,
                        "upstream.example.", "192.0.2.200"),
                ok("PTR of a ClusterIP", "10.0.96.10.in-addr.arpa.", Type.PTR, "web.shop.svc.cluster.local."),
                ok("PTR of an endpoint", "5.0.1.10.in-addr.arpa.", Type.PTR, "db-0.db.shop.svc.cluster.local."),
                ok("PTR of an IPv6 ClusterIP", "0.1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.6.9.0.0.0.0.d.f.ip6.arpa.", Type.PTR,
                        "web.shop.svc.cluster.local."),
                ok("PTR of an unknown IP goes to the forwarder", "99.99.99.10.in-addr.arpa.", Type.PTR, "somewhere.example."),
                ok("pods insecure: synthesized in a known namespace", "10-1-0-9.shop.pod.cluster.local.", Type.A, "10.1.0.9"),
                ok("pods insecure: any IP", "1-2-3-4.shop.pod.cluster.local.", Type.A, "1.2.3.4"),
                nodata("pods insecure: an IPv4 pod name has no AAAA", "10-1-0-9.shop.pod.cluster.local.", Type.AAAA),
                nxdomain("pods insecure: unknown namespace", "10-1-0-9.nowhere.pod.cluster.local.", Type.A),
                nxdomain("unknown namespace", "web.nowhere.svc.cluster.local.", Type.A),
                nodata("namespace name: empty non-terminal", "shop.svc.cluster.local.", Type.A),
                ok("schema version", "dns-version.cluster.local.", Type.TXT, "\"1.1.0\""),
                ok("remote-only service: remote ClusterIPs", "pay.billing.svc.cluster.local.", Type.A, "10.112.0.20", "10.128.0.20"),
                ok("clusterset: merged ClusterIPs", "web.shop.svc.clusterset.local.", Type.A, "10.112.0.10", "10.96.0.10"),
                ok("clusterset: one cluster", "west.web.shop.svc.clusterset.local.", Type.A, "10.112.0.10"),
                ok("clusterset: ServiceImport IP", "cart.shop.svc.clusterset.local.", Type.A, "10.200.0.1"),
                ok("clusterset: headless union", "db.shop.svc.clusterset.local.", Type.A, "10.1.0.5", "10.1.0.6", "10.2.0.5"),
                ok("clusterset: hostname.cluster", "db-0.west.db.shop.svc.clusterset.local.", Type.A, "10.2.0.5"),
                ok("ServiceEntry addresses", "api.example.com.", Type.A, "192.0.2.10"),
                ok("ServiceEntry host without AAAA: NODATA (overlay, no SOA)", "api.example.com.", Type.AAAA),
                ok("ServiceEntry wildcard host", "anything.wild.example.com.", Type.A, "192.0.2.10"),
                ok("ServiceEntry allocated VIP", "vip.partner.test.", Type.A, "240.240.0.7"),
                ok("ServiceEntry allocated VIP v6", "vip.partner.test.", Type.AAAA, "2001:2::7"),
                ok("ServiceEntry resolution DNS with IP endpoints", "eps.partner.test.", Type.A, "198.51.100.1"),
                ok("placeholder: unknown service in a known namespace", "lazy.shop.svc.cluster.local.", Type.A, MeshConformanceProfile.PLACEHOLDER),
                ok("placeholder: namespace known only in a remote cluster", "lazy.billing.svc.cluster.local.", Type.A,
                        MeshConformanceProfile.PLACEHOLDER),
                nodata("placeholder: AAAA is NODATA", "lazy.shop.svc.cluster.local.", Type.AAAA),
                nxdomain("placeholder never for a search-path expansion (google.com)", "google.com.svc.cluster.local.", Type.A),
                nxdomain("placeholder never for a multi-label expansion", "www.example.com.default.svc.cluster.local.", Type.A),
                nxdomain("placeholder never outside svc", "lazy.shop.cluster.local.", Type.A),
                ok("placeholder under a ServiceEntry suffix", "whatever.service.entry.", Type.A, MeshConformanceProfile.PLACEHOLDER),
                nodata("placeholder suffix: AAAA NODATA", "whatever.service.entry.", Type.AAAA),
                ok("a ServiceEntry under the suffix keeps its address", "known.service.entry.", Type.A, "192.0.2.77"),
                ok("google.com resolves through the forwarder", "google.com.", Type.A, "192.0.2.100"),
                ok("autopath: first expansion of an external name", "google.com.shop.svc.cluster.local.", Type.A,
                        "google.com.", "192.0.2.100"),
                ok("autopath: first expansion of <svc>.<ns>", "pay.billing.shop.svc.cluster.local.", Type.A,
                        "pay.billing.svc.cluster.local.", "10.112.0.20", "10.128.0.20"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    void conforms(Row row) throws IOException {
        Message m = client.udp(row.name, row.type);
        assertEquals(Rcode.string(row.rcode), Rcode.string(m.getRcode()), row + "\n" + m);
        if (row.rcode == Rcode.NXDOMAIN || row.answer.contains(NONE)) {
            assertTrue(m.getSection(Section.ANSWER).isEmpty(), row + "\n" + m);
            assertTrue(m.getSection(Section.AUTHORITY).stream().anyMatch(r -> r.getType() == Type.SOA),
                    "negative answers carry the zone SOA (RFC 2308)\n" + m);
            return;
        }
        assertEquals(row.answer, rdata(m), row + "\n" + m);
    }

    @Test
    void placeholderHasItsOwnTtlAndKubernetesNamesTtl5() throws IOException {
        assertEquals(60, client.udp("lazy.shop.svc.cluster.local.", Type.A).getSection(Section.ANSWER).get(0).getTTL());
        assertEquals(5, client.udp("web.shop.svc.cluster.local.", Type.A).getSection(Section.ANSWER).get(0).getTTL());
        Message m = client.udp("web.shop.svc.cluster.local.", Type.A);
        assertTrue(m.getHeader().getFlag(Flags.AA));
    }

    @Test
    void srvAnswersCarryGlue() throws IOException {
        Message m = client.udp("_pg._tcp.db.shop.svc.cluster.local.", Type.SRV);
        Set<String> glue = new TreeSet<>();
        for (Record r : m.getSection(Section.ADDITIONAL)) {
            if (r instanceof ARecord a) glue.add(a.getName() + " " + a.getAddress().getHostAddress());
        }
        assertEquals(Set.of("10-1-0-6.db.shop.svc.cluster.local. 10.1.0.6", "db-0.db.shop.svc.cluster.local. 10.1.0.5"), glue);
    }

    @Test
    void autopathOnlyForTheAskingPodsOwnNamespace() throws IOException {
        // 127.0.0.2 is no pod: the expansion stays NXDOMAIN, the resolver goes on by itself.
        byte[] reply = client.rawUdpFrom("127.0.0.2", DnsClient.query("google.com.shop.svc.cluster.local.", Type.A, DClass.IN).toWire(),
                Duration.ofSeconds(3));
        assertNotNull(reply);
        assertEquals(Rcode.NXDOMAIN, new Message(reply).getRcode());
        // From the pod, but a namespace that is not its own: not the first expansion.
        assertEquals(Rcode.NXDOMAIN, client.udp("google.com.billing.svc.cluster.local.", Type.A).getRcode());
    }

    @Test
    void multiClusterAnswersRotate() throws IOException {
        Set<String> firsts = new HashSet<>();
        List<Set<String>> sets = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Message m = client.udp("pay.billing.svc.cluster.local.", Type.A);
            firsts.add(m.getSection(Section.ANSWER).get(0).rdataToString());
            sets.add(rdata(m));
        }
        assertEquals(2, firsts.size(), "round robin puts each cluster's address first in turn");
        assertEquals(1, new HashSet<>(sets).size(), "the RRset itself never changes");
    }

    @Test
    void clusterDomainSoaIsSynthesized() throws IOException {
        Message m = client.udp("cluster.local.", Type.SOA);
        assertEquals(Rcode.NOERROR, m.getRcode());
        assertEquals(Type.SOA, m.getSection(Section.ANSWER).get(0).getType());
        assertEquals(Name.fromConstantString("cluster.local."), m.getSection(Section.ANSWER).get(0).getName());
    }

    private static Set<String> rdata(Message m) {
        Set<String> out = new TreeSet<>();
        for (Record r : m.getSection(Section.ANSWER)) {
            out.add(r instanceof AAAARecord a ? Names.compressedV6(a.getAddress()) : r.rdataToString());
        }
        return out;
    }
}
