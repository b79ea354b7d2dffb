package io.meshdns.exposure.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.plan.DomainFilter;
import io.meshdns.exposure.plan.Policy;
import io.meshdns.exposure.provider.rfc2136.Rfc2136Provider;
import io.meshdns.exposure.registry.TxtNameMapper;
import io.meshdns.exposure.registry.TxtRegistry;
import io.meshdns.exposure.source.Desired;
import io.meshdns.exposure.sync.Reconciler;
import io.meshdns.exposure.testing.Rfc2136Targets;
import io.meshdns.testsupport.dns.BindServer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Incremental zone reads (RFC 1995 IXFR) of the rfc2136 provider against real BIND9s, one with and one without IXFR. */
class Rfc2136IxfrBindTest {

    static BindServer bind;
    static BindServer noIxfr;

    @BeforeAll
    static void start() throws Exception {
        bind = new BindServer("hmac-sha256", List.of("ixfr.test", "big.test"));
        bind.start("foreign IN A 192.0.2.99\n");
        noIxfr = new BindServer("hmac-sha256", List.of("full.test")).withoutIxfr();
        noIxfr.start("foreign IN A 192.0.2.99\n");
    }

    @AfterAll
    static void stop() throws Exception {
        if (bind != null) bind.close();
        if (noIxfr != null) noIxfr.close();
    }

    static Endpoint ep(String name, String resource, String... targets) {
        return new Endpoint(name, "A", List.of(targets), 120, Map.of(Endpoint.RESOURCE_LABEL, resource), "");
    }

    static Reconciler reconciler(Rfc2136Provider provider) {
        return new Reconciler(new TxtRegistry(provider, "owner-1", TxtNameMapper.plain(), 0), Policy.SYNC, DomainFilter.ALL, false);
    }

    /** Someone else's write, through its own provider (so our provider's cache knows nothing of it). */
    static void foreignWrite(BindServer server, String zone, RecordOp op) throws Exception {
        new TxtRegistry(Rfc2136Targets.provider(server, List.of(zone)), "someone", TxtNameMapper.plain(), 0).apply(List.of(op));
    }

    static Set<String> rrsets(List<Endpoint> raw) {
        var s = new HashSet<String>();
        for (Endpoint e : raw) s.add(e.dnsName() + " " + e.recordType() + " " + e.ttl() + " " + e.targets());
        return s;
    }

    @Test
    void changesBySomeoneElseAreReadThroughIxfrAndEqualAFullTransfer() throws Exception {
        var provider = Rfc2136Targets.provider(bind, List.of("ixfr.test"));
        var r = reconciler(provider);
        // BIND9 sends the whole zone when a diff would be larger than it (max-ixfr-ratio): 100 records keep it small
        var wanted = new ArrayList<Endpoint>(List.of(ep("web.ixfr.test", "service/default/web", "192.0.2.1"),
                ep("api.ixfr.test", "service/default/api", "192.0.2.2")));
        for (int i = 0; i < 100; i++) wanted.add(ep("h" + i + ".ixfr.test", "service/default/h" + i, "10.2.0." + i));
        Desired desired = new Desired(wanted, Set.of());
        r.reconcile(desired);
        assertEquals(1, provider.zoneReads("axfr"), "first read: nothing cached, full transfer");
        // the fill is larger than the zone was, so BIND9 may answer it either way; from here on diffs are small
        assertTrue(r.reconcile(desired).ops().isEmpty());
        long axfr = provider.zoneReads("axfr");
        wanted.set(0, ep("web.ixfr.test", "service/default/web", "192.0.2.3"));
        desired = new Desired(wanted, Set.of());
        assertEquals(1, r.reconcile(desired).changes().size());
        assertTrue(r.reconcile(desired).ops().isEmpty());
        assertEquals(1, provider.zoneReads("ixfr"), "our own UPDATE moved the serial: read as a diff");

        // someone else adds a record, changes the foreign one and deletes our data record (its claim stays)
        foreignWrite(bind, "ixfr.test", new RecordOp.AddRecords(Endpoint.of("other.ixfr.test", "A", 60, "192.0.2.50")));
        foreignWrite(bind, "ixfr.test", new RecordOp.ReplaceRRset(Endpoint.of("foreign.ixfr.test", "A", 60, "192.0.2.98")));
        foreignWrite(bind, "ixfr.test", new RecordOp.DeleteRRset(Endpoint.of("api.ixfr.test", "A", 0, "192.0.2.2")));
        List<Endpoint> seen = provider.records();
        assertEquals(2, provider.zoneReads("ixfr"), "three foreign UPDATEs read as one IXFR");
        assertEquals(axfr, provider.zoneReads("axfr"));
        assertEquals(rrsets(Rfc2136Targets.provider(bind, List.of("ixfr.test")).records()), rrsets(seen),
                "the cached copy with the diff applied equals a fresh AXFR");

        // the deletion seen through IXFR is repaired (drift), the foreign records are left as they are
        var outcome = r.reconcile(desired);
        assertTrue(outcome.changes().size() > 0, outcome.changes().describe());
        assertEquals(List.of("192.0.2.2"), bind.dig("api.ixfr.test", "A"));
        assertEquals(List.of("192.0.2.98"), bind.dig("foreign.ixfr.test", "A"));
        assertEquals(List.of("192.0.2.50"), bind.dig("other.ixfr.test", "A"));
        assertTrue(r.reconcile(desired).ops().isEmpty());
        assertEquals(axfr, provider.zoneReads("axfr"), "no AXFR once our copy exists and diffs are small");
        r.reconcile(desired);
        assertTrue(provider.zoneReads("cached") >= 1, "serial unchanged: no transfer at all");
    }

    @Test
    void aServerWithoutIxfrAnswersWithTheWholeZoneAndThatIsUsed() throws Exception {
        var provider = Rfc2136Targets.provider(noIxfr, List.of("full.test"));
        var r = reconciler(provider);
        var desired = new Desired(List.of(ep("web.full.test", "service/default/web", "192.0.2.1")), Set.of());
        r.reconcile(desired);
        foreignWrite(noIxfr, "full.test", new RecordOp.AddRecords(Endpoint.of("other.full.test", "A", 60, "192.0.2.50")));
        List<Endpoint> seen = provider.records();
        assertEquals(0, provider.zoneReads("ixfr"), "provide-ixfr no: BIND9 sends the whole zone");
        assertEquals(2, provider.zoneReads("axfr"));
        assertEquals(rrsets(Rfc2136Targets.provider(noIxfr, List.of("full.test")).records()), rrsets(seen));
        assertTrue(seen.stream().anyMatch(e -> e.dnsName().equals("other.full.test")), seen.toString());
        assertTrue(r.reconcile(desired).ops().isEmpty());
        assertEquals(List.of("192.0.2.1"), noIxfr.dig("web.full.test", "A"));
    }

    /** With batch-change-size 1 every RRset travels with its claim: one UPDATE per change, never data without claim. */
    @Test
    void aBatchOfOneChangeKeepsEachRecordWithItsClaim() throws Exception {
        var provider = new Rfc2136Provider(new Rfc2136Provider.Settings("127.0.0.1", bind.port(), List.of("ixfr.test"),
                java.util.Optional.of(Rfc2136Targets.tsig(bind)), java.time.Duration.ofSeconds(10), 300, 0, 1));
        var wanted = new ArrayList<Endpoint>();
        for (int i = 0; i < 5; i++) wanted.add(ep("batch" + i + ".ixfr.test", "service/default/batch" + i, "10.3.0." + i));
        var outcome = reconciler(provider).reconcile(new Desired(wanted, Set.of()));
        assertEquals(5, outcome.changes().size());
        assertEquals(10, outcome.ops().size(), "a data and a claim operation per change");
        assertEquals(5, provider.lastUpdateMessages(), "one message per change, each with its claim");
        for (int i = 0; i < 5; i++) assertEquals(List.of("10.3.0." + i), bind.dig("batch" + i + ".ixfr.test", "A"));
    }

    /** The figure in the README: one changed record in a 10 000-record zone, read by IXFR vs AXFR. */
    @Test
    void oneChangeInA10kZoneIxfrVersusAxfr() throws Exception {
        var provider = Rfc2136Targets.provider(bind, List.of("big.test"));
        var r = reconciler(provider);
        var endpoints = new ArrayList<Endpoint>();
        for (int i = 0; i < 10_000; i++) {
            endpoints.add(ep("h" + i + ".big.test", "service/default/h" + i, "10.1." + (i / 256) + "." + (i % 256)));
        }
        var desired = new Desired(endpoints, Set.of());
        r.reconcile(desired);
        assertTrue(r.reconcile(desired).ops().isEmpty());
        foreignWrite(bind, "big.test", new RecordOp.ReplaceRRset(Endpoint.of("foreign.big.test", "A", 60, "192.0.2.97")));

        long t = System.nanoTime();
        long ixfrBefore = provider.zoneReads("ixfr");
        assertTrue(r.reconcile(desired).ops().isEmpty());
        long ixfrMs = (System.nanoTime() - t) / 1_000_000;
        long ixfrBytes = provider.lastReadBytes();
        assertEquals(ixfrBefore + 1, provider.zoneReads("ixfr"));

        var fresh = Rfc2136Targets.provider(bind, List.of("big.test"));
        t = System.nanoTime();
        assertTrue(reconciler(fresh).reconcile(desired).ops().isEmpty());
        long axfrMs = (System.nanoTime() - t) / 1_000_000;
        long axfrBytes = fresh.lastReadBytes();
        assertEquals(1, fresh.zoneReads("axfr"));
        System.out.printf("IXFR-FIGURE one change in 20001 RRsets: pass with IXFR %d ms, %d bytes; pass with AXFR %d ms, %d bytes%n",
                ixfrMs, ixfrBytes, axfrMs, axfrBytes);
        assertTrue(ixfrBytes * 100 < axfrBytes, ixfrBytes + " vs " + axfrBytes);
    }
}
