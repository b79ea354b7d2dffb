package io.meshdns.dns.kubernetes;

import io.meshdns.dns.base.Names;

import io.meshdns.dns.DnsClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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
    io.meshdns.dns.server.QueryHandler queries;
    @Inject
    io.meshdns.dns.snapshot.SnapshotStore store;
    @Inject
    DnsClient client;
    @Inject
    io.micrometer.core.instrument.MeterRegistry meters;

    /** One row of CONFORMANCE.md: the spec section, the rule, the client's source address, the query, the expected answer. */
    record Row(String spec, String rule, String client, String name, int type, int rcode, Set<String> answer) {
        @Override
        public String toString() {
            return spec + ": " + rule + " (" + name + " " + Type.string(type) + " from " + client + ")";
        }
    }

    /** Every row of the conformance table in {@code CONFORMANCE.md} (the module directory is the working directory). */
    static Stream<Row> table() throws IOException {
        List<Row> rows = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of("CONFORMANCE.md"))) {
            if (!line.startsWith("| K8s") && !line.startsWith("| MCS") && !line.startsWith("| meshdns")) continue;
            String[] cells = line.substring(1, line.lastIndexOf('|')).split("\\|", -1);
            assertEquals(7, cells.length, "a conformance row has 7 cells: " + line);
            Set<String> answer = new TreeSet<>();
            for (String rdata : cells[6].split(";")) {
                if (!rdata.isBlank()) answer.add(rdata.trim());
            }
            int type = Type.value(cells[4].trim());
            int rcode = Rcode.value(cells[5].trim());
            assertTrue(type > 0 && rcode >= 0, "bad type or rcode in " + line);
            rows.add(new Row(cells[0].trim(), cells[1].trim(), cells[2].trim(), cells[3].trim(), type, rcode, answer));
        }
        assertTrue(rows.size() > 50, "CONFORMANCE.md lost its rows: " + rows.size());
        return rows.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    void conforms(Row row) throws IOException {
        byte[] reply = client.rawUdpFrom(row.client(), DnsClient.query(row.name(), row.type(), DClass.IN).toWire(), Duration.ofSeconds(3));
        assertNotNull(reply, row + ": no answer");
        Message m = new Message(reply);
        assertEquals(Rcode.string(row.rcode()), Rcode.string(m.getRcode()), row + "\n" + m);
        if (row.rcode() == Rcode.NXDOMAIN || row.answer().contains(NONE)) {
            assertTrue(m.getSection(Section.ANSWER).isEmpty(), row + "\n" + m);
            assertTrue(m.getSection(Section.AUTHORITY).stream().anyMatch(r -> r.getType() == Type.SOA),
                    "negative answers carry the zone SOA (RFC 2308)\n" + m);
            return;
        }
        assertEquals(row.answer(), rdata(m), row + "\n" + m);
    }

    /**
     * The answer memo against per-client answers: {@code hidden.example} is ours for namespace shop and forwarded for
     * everyone else (whose answer the fast path would then replay from the cache). Asked in turn from a pod of
     * default, a pod of shop and no pod, each client keeps getting its own answer; repeated answers to the client
     * that sees our record are byte-identical to its first one (ID aside), fast path or slow.
     */
    @Test
    void perClientAnswersNeverCrossThroughTheFastPath() throws IOException {
        String[][] clients = {{"127.0.0.3", "192.0.2.201"}, {"127.0.0.2", "192.0.2.80"}, {"127.0.0.9", "192.0.2.201"}};
        byte[] query = DnsClient.query("hidden.example.", Type.A, DClass.IN).toWire();
        byte[] firstOwn = null;
        for (int round = 0; round < 8; round++) {
            for (String[] c : clients) {
                byte[] reply = client.rawUdpFrom(c[0], query, Duration.ofSeconds(3));
                assertNotNull(reply, "no answer for " + c[0]);
                Message m = new Message(reply);
                assertEquals(Set.of(c[1]), rdata(m), "round " + round + ", client " + c[0] + "\n" + m);
                if (c[0].equals("127.0.0.2")) {
                    if (firstOwn == null) firstOwn = reply;
                    else assertArrayEquals(firstOwn, reply, "round " + round + ": the same bytes every time");
                }
            }
        }
        // A name every client sees is still replayed by the fast path for all of them (same bytes, ID aside).
        byte[] plain = DnsClient.query("google.com.", Type.A, DClass.IN).toWire();
        Set<String> answers = new HashSet<>();
        for (String[] c : clients) answers.add(rdata(new Message(client.rawUdpFrom(c[0], plain, Duration.ofSeconds(3)))).toString());
        assertEquals(Set.of("[192.0.2.100]"), answers);
    }

    /**
     * Answers from the mesh zones go through the UDP fast path where no client could get another answer: a
     * Service's NODATA and an insecure pod name (questions no other test asks) are remembered on the first query and
     * replayed byte for byte (ID aside) on the next; spread answers, autopath's and names exported to some namespaces
     * only are not (the per-client and rotation tests of this class hold the answers themselves to that).
     */
    @Test
    void meshZoneAnswersAreReplayedWhereNoClientCounts() throws IOException {
        double before = memoEntries();
        for (Object[] q : new Object[][] {{"web.shop.svc.cluster.local.", Type.NAPTR}, {"10-201-202-203.shop.pod.cluster.local.", Type.A}}) {
            String name = (String) q[0];
            byte[] query = DnsClient.query(name, (int) q[1], DClass.IN).toWire();
            byte[] first = client.rawUdpFrom("127.0.0.9", query, Duration.ofSeconds(3));
            byte[] second = client.rawUdpFrom("127.0.0.2", query, Duration.ofSeconds(3));
            assertNotNull(first, name);
            assertArrayEquals(first, second, name + ": the remembered answer is the slow path's bytes");
        }
        assertEquals(before + 2, memoEntries(), 0.0, "both answers remembered");
        double spread = memoEntries();
        client.udp("pay.billing.svc.cluster.local.", Type.A);
        client.udp("pay.billing.svc.cluster.local.", Type.A);
        assertEquals(spread, memoEntries(), 0.0, "a spread answer is never remembered");
    }

    /**
     * An NXDOMAIN that autopath would answer for a pod of the namespace the name expands is not replayed: a client
     * that is no pod gets the zone's NXDOMAIN (again and again), and the pod of shop asking next still gets autopath's
     * CNAME and the name's address.
     */
    @Test
    void anNxdomainAutopathWouldAnswerForAPodIsNotReplayedToThePod() throws IOException {
        byte[] query = DnsClient.query("web.shop.shop.svc.cluster.local.", Type.A, DClass.IN).toWire();
        for (int i = 0; i < 3; i++) {
            byte[] reply = client.rawUdpFrom("127.0.0.9", query, Duration.ofSeconds(3));
            assertNotNull(reply);
            assertEquals(Rcode.NXDOMAIN, new Message(reply).getRcode());
        }
        Message fromPod = new Message(client.rawUdpFrom("127.0.0.1", query, Duration.ofSeconds(3)));
        assertEquals(Rcode.NOERROR, fromPod.getRcode(), fromPod.toString());
        assertEquals(Type.CNAME, fromPod.getSection(Section.ANSWER).get(0).getType(), fromPod.toString());
    }

    private double memoEntries() {
        return meters.get("meshdns.dns.answer.memo.entries").gauge().value();
    }

    /** The rule that produced an answer is recorded with it (what an operator's explain reads). */
    @Test
    void everyAnswerNamesTheRuleThatProducedIt() throws Exception {
        assertEquals(io.meshdns.dns.answer.Outcome.Rule.ZONE, rule("web.shop.svc.cluster.local.", Type.A, "127.0.0.1"));
        assertEquals(io.meshdns.dns.answer.Outcome.Rule.OVERLAY, rule("api.example.com.", Type.A, "127.0.0.1"));
        assertTrue(Set.of(io.meshdns.dns.answer.Outcome.Rule.FORWARDED, io.meshdns.dns.answer.Outcome.Rule.FORWARDED_CACHED)
                        .contains(rule("hidden.example.", Type.A, "127.0.0.3")),
                "a hidden host outside our zones is forwarded (other tests may have asked it: then from the cache)");
        assertEquals(io.meshdns.dns.answer.Outcome.Rule.NOT_EXPORTED, rule("_http._tcp.internal.shop.svc.cluster.local.", Type.SRV, "127.0.0.3"));
        assertEquals(io.meshdns.dns.answer.Outcome.Rule.MESH_SYNTHESIZED, rule("internal.shop.svc.cluster.local.", Type.A, "127.0.0.3"),
                "hidden Service: NXDOMAIN, then the placeholder");
        assertEquals(io.meshdns.dns.answer.Outcome.Rule.MESH_SYNTHESIZED, rule("lazy.shop.svc.cluster.local.", Type.A, "127.0.0.1"));
        assertEquals(io.meshdns.dns.answer.Outcome.Rule.MESH_ADJUSTED, rule("ext.shop.svc.cluster.local.", Type.A, "127.0.0.1"));
        assertEquals(io.meshdns.dns.answer.Outcome.Rule.WILDCARD_HOST, rule("anything.wild.example.com.", Type.A, "127.0.0.1"));
        assertEquals(io.meshdns.dns.answer.Outcome.Rule.AUTOPATH, rule("web.shop.shop.svc.cluster.local.", Type.A, "127.0.0.1"),
                "the first search-path expansion from a pod of shop");
        assertEquals(io.meshdns.dns.answer.Outcome.Rule.ZONE, rule("web.shop.shop.svc.cluster.local.", Type.A, "127.0.0.9"),
                "no pod: the zone's NXDOMAIN stands");
        assertEquals(io.meshdns.dns.answer.Outcome.Rule.FORWARDED, rule("rule-twice.example.", Type.A, "127.0.0.1"),
                "first asked: Knot answers");
        assertEquals(io.meshdns.dns.answer.Outcome.Rule.FORWARDED_CACHED, rule("rule-twice.example.", Type.A, "127.0.0.1"),
                "asked again: the cache answers");
    }

    private io.meshdns.dns.answer.Outcome.Rule rule(String name, int type, String client) throws Exception {
        Message query = DnsClient.query(name, type, DClass.IN);
        io.meshdns.dns.answer.QueryContext ctx = new io.meshdns.dns.answer.QueryContext(store.current(),
                new io.meshdns.dns.answer.ClientInfo(client, 40000, false, io.meshdns.dns.answer.Transport.UDP), query);
        return queries.handle(ctx, query.toWire()).toCompletableFuture().get(5, java.util.concurrent.TimeUnit.SECONDS).rule();
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
        // 127.0.0.9 is no pod: the expansion stays NXDOMAIN, the resolver goes on by itself.
        byte[] reply = client.rawUdpFrom("127.0.0.9", DnsClient.query("google.com.shop.svc.cluster.local.", Type.A, DClass.IN).toWire(),
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
            out.add(MeshFixture.rdata(r));
        }
        return out;
    }
}
