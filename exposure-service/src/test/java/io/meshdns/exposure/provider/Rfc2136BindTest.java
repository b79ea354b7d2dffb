package io.meshdns.exposure.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.plan.DomainFilter;
import io.meshdns.exposure.plan.Policy;
import io.meshdns.exposure.registry.TxtNameMapper;
import io.meshdns.exposure.registry.TxtRegistry;
import io.meshdns.exposure.source.Desired;
import io.meshdns.exposure.sync.Reconciler;
import io.meshdns.testsupport.dns.BindServer;
import io.meshdns.exposure.testing.Rfc2136Targets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.Lookup;
import org.xbill.DNS.Record;
import org.xbill.DNS.SRVRecord;
import org.xbill.DNS.Type;

/** Registry + plan + RFC 2136 provider against a real BIND9, verified with dig, AXFR and dnsjava lookups. */
class Rfc2136BindTest {

    static final String FOREIGN = """
            foreign IN A 192.0.2.99
            foreign IN TXT "hand-made"
            takeover IN A 192.0.2.10
            a-takeover IN TXT "heritage=external-dns,external-dns/owner=cluster-a,external-dns/resource=service/default/takeover"
            legacy IN A 192.0.2.11
            legacy IN TXT "heritage=external-dns,external-dns/owner=cluster-a,external-dns/resource=service/default/legacy"
            stolen IN A 192.0.2.12
            a-stolen IN TXT "heritage=external-dns,external-dns/owner=someone-else,external-dns/resource=service/x/y"
            """;

    /** Exactly what ExternalDNS v0.22's rfc2136 provider leaves in a zone (typed TXT only, min-ttl 0 so TTL 0 everywhere). */
    static final String EXTERNAL_DNS_V022 = """
            web 0 IN A 203.0.113.20
            a-web 0 IN TXT "heritage=external-dns,external-dns/owner=ext,external-dns/resource=service/shop/web"
            api 0 IN A 203.0.113.30
            a-api 0 IN TXT "heritage=external-dns,external-dns/owner=ext,external-dns/resource=service/shop/api"
            """;

    static BindServer bind;

    @BeforeAll
    static void start() throws Exception {
        bind = new BindServer("hmac-sha256", List.of("example.org", "takeover.test", "shared.test", "dryrun.test", "bulk.test",
                "isolation.test", "serial.test", "squat.test", "shop.test", "adopt.test"));
        bind.start(FOREIGN);
    }

    @AfterAll
    static void stop() throws Exception {
        bind.close();
    }

    static Reconciler reconciler(String owner, Policy policy, boolean dryRun) {
        return reconciler("example.org", owner, policy, dryRun);
    }

    /** Each test owns one zone of the shared BIND9, so test order does not matter. */
    static Reconciler reconciler(String zone, String owner, Policy policy, boolean dryRun) {
        return new Reconciler(new TxtRegistry(Rfc2136Targets.provider(bind, List.of(zone)), owner, TxtNameMapper.plain(), 300), policy,
                DomainFilter.ALL, dryRun);
    }

    static Endpoint ep(String name, String type, String resource, String... targets) {
        return new Endpoint(name, type, List.of(targets), 120, Map.of(Endpoint.RESOURCE_LABEL, resource), "");
    }

    /** An endpoint several owners publish into (meshdns.io/shared): its claim is a share from the start. */
    static Endpoint shared(String name, String type, String resource, String... targets) {
        return ep(name, type, resource, targets).withProviderSpecific(Map.of(TxtRegistry.SHARED_PROPERTY, "true"));
    }

    @Test
    void publishesEveryTypeReadsItBackAndConverges() throws Exception {
        var desired = Desired.of(
                ep("web.example.org", "A", "service/default/web", "192.0.2.1", "192.0.2.2"),
                ep("web.example.org", "AAAA", "service/default/web", "2001:db8::1"),
                ep("alias.example.org", "CNAME", "ingress/default/alias", "web.example.org"),
                ep("registry.nsm-system.example.org", "SRV", "service/nsm-system/registry", "0 0 5002 registry.nsm-system.example.org"),
                ep("registry.nsm-system.example.org", "A", "service/nsm-system/registry", "192.0.2.50"),
                ep("note.example.org", "TXT", "crd/default/note", "hello world"),
                ep("foreign.example.org", "A", "service/default/foreign", "192.0.2.1"),
                ep("stolen.example.org", "A", "service/default/stolen", "192.0.2.1"));
        var r = reconciler("owner-1", Policy.SYNC, false);
        var first = r.reconcile(desired);
        assertEquals(6, first.changes().create().size(), first.changes().describe());
        assertEquals(2, first.ownerMismatches(), "foreign and stolen are not ours");
        assertEquals(java.util.Set.of("service/default/foreign", "service/default/stolen"), java.util.Set.copyOf(first.problems().stream()
                .filter(p -> p.reason().equals("Conflict")).map(p -> p.resourceKey()).toList()), "a Conflict for each object left out");

        assertEquals(List.of("192.0.2.1", "192.0.2.2"), bind.dig("web.example.org", "A"));
        assertEquals(List.of("2001:db8::1"), bind.dig("web.example.org", "AAAA"));
        assertEquals(List.of("web.example.org."), bind.dig("alias.example.org", "CNAME"));
        assertEquals(List.of("\"hello world\""), bind.dig("note.example.org", "TXT"));
        // exactly ExternalDNS's claim: the share form only for RRsets that are really shared
        assertEquals(List.of("\"heritage=external-dns,external-dns/owner=owner-1,external-dns/resource=service/default/web\""),
                bind.dig("a-web.example.org", "TXT"));
        assertEquals(List.of("\"heritage=external-dns,external-dns/owner=owner-1,external-dns/resource=ingress/default/alias\""),
                bind.dig("cname-alias.example.org", "TXT"));
        // foreign records untouched
        assertEquals(List.of("192.0.2.99"), bind.dig("foreign.example.org", "A"));
        assertEquals(List.of("\"hand-made\""), bind.dig("foreign.example.org", "TXT"));
        assertEquals(List.of("192.0.2.12"), bind.dig("stolen.example.org", "A"));

        // NSM's way: SRV on the plain name gives the port, then A on the same name gives the address
        Lookup srv = new Lookup("registry.nsm-system.example.org", Type.SRV);
        srv.setResolver(bind.resolver());
        srv.setCache(null);
        Record[] srvs = srv.run();
        assertEquals(Lookup.SUCCESSFUL, srv.getResult(), srv.getErrorString());
        assertEquals(5002, ((SRVRecord) srvs[0]).getPort());
        Lookup a = new Lookup(((SRVRecord) srvs[0]).getTarget(), Type.A);
        a.setResolver(bind.resolver());
        a.setCache(null);
        Record[] as = a.run();
        assertEquals("192.0.2.50", ((ARecord) as[0]).getAddress().getHostAddress());

        // AXFR reads back every type (SRV included): the second pass plans nothing
        var second = r.reconcile(desired);
        assertTrue(second.changes().isEmpty(), second.changes().describe());
        assertTrue(second.ops().isEmpty(), second.ops().toString());
        assertEquals(Map.of("A", 3, "AAAA", 1, "CNAME", 1, "SRV", 1, "TXT", 1), second.recordsByType());

        // update and delete
        var changed = Desired.of(
                ep("web.example.org", "A", "service/default/web", "192.0.2.3"),
                ep("alias.example.org", "CNAME", "ingress/default/alias", "other.example.org"),
                ep("registry.nsm-system.example.org", "SRV", "service/nsm-system/registry", "0 0 6000 registry.nsm-system.example.org"),
                ep("registry.nsm-system.example.org", "A", "service/nsm-system/registry", "192.0.2.50"));
        var third = r.reconcile(changed);
        assertEquals(3, third.changes().updateNew().size(), third.changes().describe());
        assertEquals(2, third.changes().delete().size(), third.changes().describe());
        assertEquals(List.of("192.0.2.3"), bind.dig("web.example.org", "A"));
        assertEquals(List.of(), bind.dig("web.example.org", "AAAA"));
        assertEquals(List.of(), bind.dig("aaaa-web.example.org", "TXT"));
        assertEquals(List.of(), bind.dig("note.example.org", "TXT"));
        assertEquals(List.of("other.example.org."), bind.dig("alias.example.org", "CNAME"));
        assertEquals(List.of("0 0 6000 registry.nsm-system.example.org."), bind.dig("registry.nsm-system.example.org", "SRV"));
        assertTrue(r.reconcile(changed).changes().isEmpty());

        // upsert-only never deletes, create-only never updates
        var emptyPass = reconciler("owner-1", Policy.UPSERT_ONLY, false).reconcile(Desired.of());
        assertTrue(emptyPass.changes().delete().isEmpty());
        assertEquals(List.of("192.0.2.3"), bind.dig("web.example.org", "A"));
        var createOnly = reconciler("owner-1", Policy.CREATE_ONLY, false)
                .reconcile(Desired.of(ep("web.example.org", "A", "service/default/web", "192.0.2.4")));
        assertTrue(createOnly.changes().isEmpty());
        assertEquals(List.of("192.0.2.3"), bind.dig("web.example.org", "A"));

        // sync with nothing desired removes all of ours, nothing else
        reconciler("owner-1", Policy.SYNC, false).reconcile(Desired.of());
        assertEquals(List.of(), bind.dig("web.example.org", "A"));
        assertEquals(List.of(), bind.dig("a-web.example.org", "TXT"));
        assertEquals(List.of(), bind.dig("registry.nsm-system.example.org", "SRV"));
        assertEquals(List.of("192.0.2.99"), bind.dig("foreign.example.org", "A"));
        assertEquals(List.of("192.0.2.10"), bind.dig("takeover.example.org", "A"));
    }

    @Test
    void takesOverExternalDnsRecordsWithoutChurnAndUpgradesLegacyTxt() throws Exception {
        // the same TTL as in the zone (300): a different one would be a real change
        var desired = Desired.of(ep("takeover.takeover.test", "A", "service/default/takeover", "192.0.2.10").withTtl(300),
                ep("legacy.takeover.test", "A", "service/default/legacy", "192.0.2.11").withTtl(0));
        var dry = reconciler("takeover.test", "cluster-a", Policy.SYNC, true).reconcile(desired);
        assertTrue(dry.changes().isEmpty(), "typed ExternalDNS TXT of the same owner: no churn: " + dry.changes().describe());
        assertEquals(1, dry.ops().size(), "only the legacy-only record gets its typed TXT: " + dry.ops());
        assertFalse(dry.applied());
        assertEquals(List.of(), bind.dig("a-legacy.takeover.test", "TXT"), "dry-run wrote nothing");

        reconciler("takeover.test", "cluster-a", Policy.SYNC, false).reconcile(desired);
        assertEquals(List.of("\"heritage=external-dns,external-dns/owner=cluster-a,external-dns/resource=service/default/legacy\""),
                bind.dig("a-legacy.takeover.test", "TXT"));
        var again = reconciler("takeover.test", "cluster-a", Policy.SYNC, false).reconcile(desired);
        assertTrue(again.ops().isEmpty(), again.ops().toString());
        assertEquals(List.of("192.0.2.10"), bind.dig("takeover.takeover.test", "A"));
    }

    @Test
    void twoOwnersMergeTargetsIntoOneRRsetWithoutFighting() throws Exception {
        var a = reconciler("shared.test", "cluster-a", Policy.SYNC, false);
        var b = reconciler("shared.test", "cluster-b", Policy.SYNC, false);
        var wantA = Desired.of(shared("gw.shared.test", "A", "service/nsm-system/nsmgr-proxy", "198.51.100.1"),
                ep("takeover.shared.test", "A", "service/default/takeover", "192.0.2.10"));
        var wantB = Desired.of(shared("gw.shared.test", "A", "service/nsm-system/nsmgr-proxy", "198.51.100.2", "198.51.100.3"));
        a.reconcile(wantA);
        b.reconcile(wantB);
        assertEquals(List.of("198.51.100.1", "198.51.100.2", "198.51.100.3"), bind.dig("gw.shared.test", "A"));
        assertEquals(2, bind.dig("a-gw.shared.test", "TXT").size());
        for (int i = 0; i < 2; i++) {
            assertTrue(a.reconcile(wantA).ops().isEmpty(), "a is stable");
            assertTrue(b.reconcile(wantB).ops().isEmpty(), "b is stable");
        }
        // b moves one target: a's stays
        var wantB2 = Desired.of(shared("gw.shared.test", "A", "service/nsm-system/nsmgr-proxy", "198.51.100.3", "198.51.100.4"));
        b.reconcile(wantB2);
        assertEquals(List.of("198.51.100.1", "198.51.100.3", "198.51.100.4"), bind.dig("gw.shared.test", "A"));
        assertTrue(a.reconcile(wantA).ops().isEmpty());
        // a's target lost by someone's hand: a repairs it from the data records, not the TXT
        var lost = new io.meshdns.exposure.registry.TxtRegistry(Rfc2136Targets.provider(bind, List.of("shared.test")), "cluster-a", TxtNameMapper.plain(), 300);
        lost.apply(List.of(new RecordOp.DeleteRecords(Endpoint.of("gw.shared.test", "A", 0, "198.51.100.1"))));
        assertEquals(1, a.reconcile(wantA).changes().size(), "a notices its missing record");
        assertEquals(List.of("198.51.100.1", "198.51.100.3", "198.51.100.4"), bind.dig("gw.shared.test", "A"));
        // a leaves: only b's targets and b's claim remain
        a.reconcile(Desired.of(ep("takeover.shared.test", "A", "service/default/takeover", "192.0.2.10")));
        assertEquals(List.of("198.51.100.3", "198.51.100.4"), bind.dig("gw.shared.test", "A"));
        assertEquals(1, bind.dig("a-gw.shared.test", "TXT").size());
        assertTrue(b.reconcile(wantB2).ops().isEmpty());
        b.reconcile(Desired.of());
        assertEquals(List.of(), bind.dig("gw.shared.test", "A"));
        assertEquals(Set.of(), Set.copyOf(bind.dig("a-gw.shared.test", "TXT")));
    }

    @Test
    void dryRunPrintsThePlanAndChangesNothing() throws Exception {
        var desired = Desired.of(ep("x.dryrun.test", "A", "service/default/x", "192.0.2.1"),
                ep("y.dryrun.test", "CNAME", "service/default/y", "x.dryrun.test"),
                ep("foreign.dryrun.test", "A", "service/default/foreign", "192.0.2.1"));
        var before = bind.digAxfr("dryrun.test");
        var outcome = reconciler("dryrun.test", "owner-1", Policy.SYNC, true).reconcile(desired);
        assertEquals(2, outcome.changes().create().size(), outcome.changes().describe());
        assertFalse(outcome.applied());
        assertEquals(before, bind.digAxfr("dryrun.test"), "the zone is byte for byte what it was");
    }

    @Test
    void bigBatchIsSplitOnlyAt64KiBAndConverges() throws Exception {
        var endpoints = new java.util.ArrayList<Endpoint>();
        for (int i = 0; i < 2000; i++) {
            endpoints.add(ep("service-number-" + i + ".bulk.test", "A", "service/bulk/s" + i, "10.1." + (i / 250) + "." + (i % 250)));
        }
        var provider = Rfc2136Targets.provider(bind, List.of("bulk.test"));
        var r = new Reconciler(new TxtRegistry(provider, "bulk-owner", TxtNameMapper.plain(), 300), Policy.SYNC, DomainFilter.ALL, false);
        long start = System.nanoTime();
        var outcome = r.reconcile(new Desired(endpoints, Set.of()));
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertEquals(2000, outcome.changes().create().size());
        int messages = provider.lastUpdateMessages();
        // ~2000 x (A + TXT claim) is ~250 KB: more than one message is needed, but not one per record
        assertTrue(messages > 1 && messages < 20, "UPDATE messages: " + messages);
        System.out.printf("bulk: 2000 records into BIND9 in %d ms with %d UPDATE messages%n", millis, messages);
        assertEquals(List.of("10.1.7.249"), bind.dig("service-number-1999.bulk.test", "A"));
        start = System.nanoTime();
        assertTrue(r.reconcile(new Desired(endpoints, Set.of())).ops().isEmpty());
        System.out.printf("bulk: steady-state pass (AXFR + plan) over 2000 records in %d ms%n", (System.nanoTime() - start) / 1_000_000);
    }

    @Test
    void oneBadObjectIsRefusedAndEverythingElseIsPublished() throws Exception {
        var many = new java.util.ArrayList<String>();
        for (int i = 0; i < 10_000; i++) many.add("10." + (i / 65536) + "." + (i / 256 % 256) + "." + (i % 256));
        var desired = new Desired(List.of(
                ep("good.isolation.test", "A", "service/default/good", "192.0.2.1"),
                // a name no configured zone holds (the apex of a zone we do not manage)
                ep("cname-interdomain.test", "CNAME", "service/default/outside", "good.isolation.test"),
                // a CNAME at the apex of our zone
                ep("isolation.test", "CNAME", "service/default/apex", "good.isolation.test"),
                // 10k targets: more than one UPDATE message can hold
                ep("huge.isolation.test", "A", "service/default/huge", many.toArray(String[]::new)),
                ep("other.isolation.test", "A", "service/default/other", "192.0.2.2")), Set.of());
        var outcome = reconciler("isolation.test", "owner-1", Policy.SYNC, false).reconcile(desired);
        assertEquals(List.of("192.0.2.1"), bind.dig("good.isolation.test", "A"));
        assertEquals(List.of("192.0.2.2"), bind.dig("other.isolation.test", "A"));
        assertEquals(List.of(), bind.dig("huge.isolation.test", "A"));
        assertEquals(Set.of("service/default/outside", "service/default/apex", "service/default/huge"),
                Set.copyOf(outcome.problems().stream().map(p -> p.resourceKey()).toList()), outcome.problems().toString());
        assertTrue(outcome.problems().stream().allMatch(p -> p.reason().equals("Invalid")));
        assertEquals(Set.of("service/default/good", "service/default/other"), outcome.published());
        assertTrue(bind.digAxfr("isolation.test").stream().anyMatch(l -> l.startsWith("isolation.test. ") && l.contains(" SOA ")),
                "the apex keeps its SOA");
    }

    @Test
    void ownershipTxtNamesCannotBeSquattedAndDeletedRecordsAreRepaired() throws Exception {
        var r = reconciler("squat.test", "owner-1", Policy.SYNC, false);
        var desired = Desired.of(ep("web.squat.test", "A", "service/default/web", "192.0.2.10"),
                // another object asking for web's claim name
                ep("a-web.squat.test", "A", "service/attacker/squat", "192.0.2.66"));
        var outcome = r.reconcile(desired);
        assertEquals(List.of("192.0.2.10"), bind.dig("web.squat.test", "A"));
        assertEquals(List.of("\"heritage=external-dns,external-dns/owner=owner-1,external-dns/resource=service/default/web\""),
                bind.dig("a-web.squat.test", "TXT"));
        assertEquals(List.of(), bind.dig("a-web.squat.test", "A"), "the squatter got nothing");
        assertEquals(List.of("service/attacker/squat"), outcome.problems().stream().map(p -> p.resourceKey()).toList());
        assertEquals("Conflict", outcome.problems().get(0).reason());

        // drift: the data record deleted by hand while its claim remains is recreated on the next pass
        new TxtRegistry(Rfc2136Targets.provider(bind, List.of("squat.test")), "owner-1", TxtNameMapper.plain(), 0)
                .apply(List.of(new RecordOp.DeleteRRset(Endpoint.of("web.squat.test", "A", 0))));
        assertEquals(List.of(), bind.dig("web.squat.test", "A"));
        r.reconcile(desired);
        assertEquals(List.of("192.0.2.10"), bind.dig("web.squat.test", "A"), "repaired");
        assertEquals(1, bind.dig("a-web.squat.test", "TXT").size(), "one claim, not two");
    }

    @Test
    void anUnchangedZoneIsNotTransferredAgain() throws Exception {
        var provider = Rfc2136Targets.provider(bind, List.of("serial.test"));
        var r = new Reconciler(new TxtRegistry(provider, "owner-1", TxtNameMapper.plain(), 0), Policy.SYNC, DomainFilter.ALL, false);
        var desired = Desired.of(ep("a.serial.test", "A", "service/default/a", "192.0.2.1"));
        r.reconcile(desired);
        assertEquals(1, provider.lastTransfers());
        assertTrue(r.reconcile(desired).ops().isEmpty());
        assertEquals(1, provider.lastTransfers(), "we wrote since the last read: transferred again");
        assertTrue(r.reconcile(desired).ops().isEmpty());
        assertEquals(0, provider.lastTransfers(), "serial unchanged since our last read: no AXFR");
        // someone else changes the zone: the serial moves and the zone is read again
        new TxtRegistry(Rfc2136Targets.provider(bind, List.of("serial.test")), "other", TxtNameMapper.plain(), 0)
                .apply(List.of(new RecordOp.AddRecords(Endpoint.of("b.serial.test", "A", 60, "192.0.2.2"))));
        r.reconcile(desired);
        assertEquals(1, provider.lastTransfers());
    }

    @Test
    void takeOverOfAnExternalDnsV022ZoneWritesNothingAndThenOnlyTheChangedRecord() throws Exception {
        // the zone file of shop.test is written by start(); seed it the way ExternalDNS left it
        // the provider as meshdns.exposure.provider=rfc2136 builds it: no default-ttl set = ExternalDNS's 0
        var provider = new io.meshdns.exposure.provider.rfc2136.Rfc2136Provider(new io.meshdns.exposure.provider.rfc2136.Rfc2136Provider.Settings(
                "127.0.0.1", bind.port(), List.of("shop.test"), java.util.Optional.of(Rfc2136Targets.tsig(bind)), java.time.Duration.ofSeconds(10),
                io.meshdns.exposure.provider.rfc2136.Rfc2136ProviderFactory.EXTERNAL_DNS_DEFAULT_TTL));
        var seed = new TxtRegistry(provider, "seed", TxtNameMapper.plain(), 0);
        var seeded = new java.util.ArrayList<RecordOp>();
        for (String line : EXTERNAL_DNS_V022.strip().split("\n")) {
            String[] p = line.trim().split("\\s+", 5);
            String value = p[4].replace("\"", "");
            seeded.add(new RecordOp.AddRecords(Endpoint.of(p[0] + ".shop.test", p[3], 0, value)));
        }
        seed.apply(seeded);
        var before = bind.digAxfr("shop.test").stream().filter(l -> !l.contains(" SOA ")).toList();
        assertTrue(before.contains("a-web.shop.test. 0 IN TXT \"heritage=external-dns,external-dns/owner=ext,external-dns/resource=service/shop/web\""), before.toString());

        var r = new Reconciler(new TxtRegistry(provider, "ext", TxtNameMapper.plain(), 0), Policy.SYNC, DomainFilter.ALL, false);
        var desired = Desired.of(ep("web.shop.test", "A", "service/shop/web", "203.0.113.20").withTtl(0),
                ep("api.shop.test", "A", "service/shop/api", "203.0.113.30").withTtl(0));
        var takeover = r.reconcile(desired);
        assertTrue(takeover.ops().isEmpty(), "no UPDATE at take-over: " + takeover.ops());

        r.reconcile(Desired.of(ep("web.shop.test", "A", "service/shop/web", "203.0.113.21").withTtl(0),
                ep("api.shop.test", "A", "service/shop/api", "203.0.113.30").withTtl(0)));
        var after = bind.digAxfr("shop.test").stream().filter(l -> !l.contains(" SOA ")).toList();
        var gone = before.stream().filter(l -> !after.contains(l)).toList();
        var added = after.stream().filter(l -> !before.contains(l)).toList();
        assertEquals(List.of("web.shop.test. 0 IN A 203.0.113.20"), gone, "only the changed data record differs");
        assertEquals(List.of("web.shop.test. 0 IN A 203.0.113.21"), added, "no external-dns/targets churn, TTL kept at 0");
    }

    @Test
    void adoptOwnersTakesOnlyDesiredRecordsAndNeverDeletesTheRest() throws Exception {
        var old = new TxtRegistry(Rfc2136Targets.provider(bind, List.of("adopt.test")), "old-id", TxtNameMapper.plain(), 0);
        var oldR = new Reconciler(old, Policy.SYNC, DomainFilter.ALL, false);
        oldR.reconcile(Desired.of(ep("keep.adopt.test", "A", "service/default/keep", "192.0.2.1"),
                ep("other.adopt.test", "A", "service/default/other", "192.0.2.2")));
        var before = bind.digAxfr("adopt.test");

        var newReg = new TxtRegistry(Rfc2136Targets.provider(bind, List.of("adopt.test")), "new-id", TxtNameMapper.plain(), 0, Set.of("old-id"));
        var desired = Desired.of(ep("keep.adopt.test", "A", "service/default/keep", "192.0.2.1"));
        // first in dry-run: the plan is shown, nothing written
        var dry = new Reconciler(newReg, Policy.SYNC, DomainFilter.ALL, true).reconcile(desired);
        assertEquals(2, dry.ops().size(), "claim swap planned: " + dry.ops());
        assertEquals(before, bind.digAxfr("adopt.test"));

        var r = new Reconciler(newReg, Policy.SYNC, DomainFilter.ALL, false);
        r.reconcile(desired);
        assertEquals(List.of("\"heritage=external-dns,external-dns/owner=new-id,external-dns/resource=service/default/keep\""),
                bind.dig("a-keep.adopt.test", "TXT"));
        assertEquals(List.of("192.0.2.1"), bind.dig("keep.adopt.test", "A"), "data untouched");
        // the old owner's record that is not desired stays, with its claim, even under sync
        assertEquals(List.of("192.0.2.2"), bind.dig("other.adopt.test", "A"));
        assertEquals(List.of("\"heritage=external-dns,external-dns/owner=old-id,external-dns/resource=service/default/other\""),
                bind.dig("a-other.adopt.test", "TXT"));
        assertTrue(r.reconcile(desired).ops().isEmpty(), "adopted: converged");
        r.reconcile(Desired.of());
        assertEquals(List.of(), bind.dig("keep.adopt.test", "A"), "now ours: sync deletes it");
        assertEquals(List.of("192.0.2.2"), bind.dig("other.adopt.test", "A"), "never the old owner's");
    }
}
