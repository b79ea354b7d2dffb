package io.meshdns.exposure.provider.coredns;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.plan.DomainFilter;
import io.meshdns.exposure.plan.Policy;
import io.meshdns.exposure.registry.TxtNameMapper;
import io.meshdns.exposure.registry.TxtRegistry;
import io.meshdns.exposure.source.Desired;
import io.meshdns.exposure.sync.Reconciler;
import io.meshdns.testsupport.dns.EtcdServer;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The coredns provider against a real etcd: keys and values as ExternalDNS's coredns provider writes them. */
class CorednsProviderTest {

    static EtcdServer etcd;
    static final DomainFilter FILTER = new DomainFilter(List.of("example.org"), List.of(), Optional.empty(), Optional.empty());

    @BeforeAll
    static void start() throws Exception {
        etcd = new EtcdServer().start();
        etcd.put("/skydns/org/example/foreign/hand", "{\"host\":\"192.0.2.99\",\"targetstrip\":1}");
        // ExternalDNS v0.22 wrote these: the data record and the typed TXT claim, each under a random label
        etcd.put("/skydns/org/example/web/6a7f3c21", "{\"host\":\"203.0.113.20\",\"targetstrip\":1}");
        etcd.put("/skydns/org/example/a-web/1b2c3d4e", "{\"text\":\"\\\"heritage=external-dns,external-dns/owner=ext,external-dns/resource=service/shop/web\\\"\",\"targetstrip\":1}");
    }

    @AfterAll
    static void stop() throws Exception {
        etcd.close();
    }

    static Reconciler reconciler(String owner) {
        var provider = new CorednsProvider(List.of(URI.create(etcd.clientUrl())), "/skydns/", Duration.ofSeconds(5), FILTER, 0);
        return new Reconciler(new TxtRegistry(provider, owner, TxtNameMapper.plain(), 0), Policy.SYNC, FILTER, false);
    }

    static Endpoint ep(String name, String type, String resource, long ttl, String... targets) {
        return new Endpoint(name, type, List.of(targets), ttl, Map.of(Endpoint.RESOURCE_LABEL, resource), "");
    }

    @Test
    void takesOverWritesUpdatesDeletesInExternalDnsFormat() throws Exception {
        var r = reconciler("ext");
        var takeover = r.reconcile(Desired.of(ep("web.example.org", "A", "service/shop/web", 0, "203.0.113.20")));
        assertTrue(takeover.ops().isEmpty(), "ExternalDNS's keys taken over without a write: " + takeover.ops());
        var before = etcd.range("/skydns/");

        var desired = Desired.of(ep("web.example.org", "A", "service/shop/web", 0, "203.0.113.21"),
                ep("api.example.org", "A", "service/shop/api", 60, "192.0.2.1", "192.0.2.2"),
                ep("alias.example.org", "CNAME", "ingress/shop/alias", 0, "web.example.org"),
                ep("registry.example.org", "SRV", "service/nsm/registry", 0, "0 0 5002 registry.example.org"),
                ep("foreign.example.org", "A", "service/shop/foreign", 0, "192.0.2.1"));
        var outcome = r.reconcile(desired);
        var keys = etcd.range("/skydns/");
        // the claim keeps its key and value; the changed target moves to a new random label, as ExternalDNS does it
        assertEquals(before.get("/skydns/org/example/a-web/1b2c3d4e"), keys.get("/skydns/org/example/a-web/1b2c3d4e"));
        assertEquals(List.of("{\"host\":\"203.0.113.21\",\"targetstrip\":1}"), keys.entrySet().stream()
                .filter(e -> e.getKey().matches("/skydns/org/example/web/[0-9a-f]{8}")).map(Map.Entry::getValue).toList());
        Pattern random = Pattern.compile("/skydns/org/example/api/[0-9a-f]{8}");
        var api = keys.entrySet().stream().filter(e -> random.matcher(e.getKey()).matches()).map(Map.Entry::getValue).sorted().toList();
        assertEquals(List.of("{\"host\":\"192.0.2.1\",\"ttl\":60,\"targetstrip\":1}", "{\"host\":\"192.0.2.2\",\"ttl\":60,\"targetstrip\":1}"), api);
        assertTrue(keys.entrySet().stream().anyMatch(e -> e.getKey().matches("/skydns/org/example/a-api/[0-9a-f]{8}")
                && e.getValue().equals("{\"text\":\"\\\"heritage=external-dns,external-dns/owner=ext,external-dns/resource=service/shop/api\\\"\",\"targetstrip\":1}")), keys.toString());
        assertTrue(keys.entrySet().stream().anyMatch(e -> e.getKey().matches("/skydns/org/example/alias/[0-9a-f]{8}")
                && e.getValue().equals("{\"host\":\"web.example.org\",\"targetstrip\":1}")), keys.toString());
        assertEquals("{\"host\":\"192.0.2.99\",\"targetstrip\":1}", keys.get("/skydns/org/example/foreign/hand"), "foreign key untouched");
        // SRV cannot be held by CoreDNS's etcd format: refused, reported, the rest published
        assertTrue(keys.keySet().stream().noneMatch(k -> k.contains("/registry")), keys.toString());
        assertEquals(List.of("service/nsm/registry"), outcome.problems().stream().filter(p -> p.reason().equals("Invalid")).map(p -> p.resourceKey()).toList());
        assertEquals(List.of("service/shop/foreign"), outcome.problems().stream().filter(p -> p.reason().equals("Conflict")).map(p -> p.resourceKey()).toList());

        // a restart: a new provider converges without writes (the SRV stays refused)
        var again = reconciler("ext").reconcile(desired);
        assertEquals(1, again.changes().size(), again.changes().describe());

        reconciler("ext").reconcile(Desired.of(ep("web.example.org", "A", "service/shop/web", 0, "203.0.113.21")));
        keys = etcd.range("/skydns/");
        assertTrue(keys.keySet().stream().noneMatch(k -> k.contains("/api/") || k.contains("/a-api/") || k.contains("/alias/")), keys.toString());
        assertEquals("{\"host\":\"192.0.2.99\",\"targetstrip\":1}", keys.get("/skydns/org/example/foreign/hand"));
        assertTrue(keys.keySet().stream().anyMatch(k -> k.matches("/skydns/org/example/web/[0-9a-f]{8}")), keys.toString());
        assertTrue(keys.containsKey("/skydns/org/example/a-web/1b2c3d4e"));
    }

    /** ExternalDNS v0.22's --coredns-strictly-owned and coredns/group: what is written, what is read, what is left alone. */
    @Test
    void strictlyOwnedValuesCarryTheOwnerAndGroupsAreWritten() throws Exception {
        etcd.put("/skydns/org/example/strict/mine/0a0b0c0d", "{\"host\":\"203.0.113.30\",\"targetstrip\":1,\"owner\":\"me\"}");
        etcd.put("/skydns/org/example/strict/a-mine/0e0f1011",
                "{\"text\":\"\\\"heritage=external-dns,external-dns/owner=me,external-dns/resource=crd/x/y\\\"\",\"targetstrip\":1,\"owner\":\"me\"}");
        etcd.put("/skydns/org/example/strict/theirs/12131415", "{\"host\":\"203.0.113.31\",\"targetstrip\":1,\"owner\":\"other\"}");
        var provider = new CorednsProvider(List.of(URI.create(etcd.clientUrl())), "/skydns/", Duration.ofSeconds(5), FILTER, 0, "me");
        var names = provider.records().stream().map(Endpoint::dnsName).toList();
        assertTrue(names.contains("mine.strict.example.org") && !names.contains("theirs.strict.example.org") && !names.contains("web.example.org"),
                "only this owner's values are read: " + names);

        var grouped = new Endpoint("grp.strict.example.org", "A", List.of("203.0.113.40"), 0, Map.of(Endpoint.RESOURCE_LABEL, "crd/x/y"), "",
                Map.of(CorednsProvider.GROUP_PROPERTY, "g1"));
        var r = new Reconciler(new TxtRegistry(provider, "me", TxtNameMapper.plain(), 0), Policy.SYNC, FILTER, false);
        var first = r.reconcile(new Desired(List.of(ep("mine.strict.example.org", "A", "crd/x/y", 0, "203.0.113.30"), grouped), Set.of()));
        assertEquals(1, first.changes().create().size(), first.changes().describe());
        var values = etcd.range("/skydns/org/example/strict/grp/");
        assertEquals(List.of("{\"host\":\"203.0.113.40\",\"targetstrip\":1,\"group\":\"g1\",\"owner\":\"me\"}"), List.copyOf(values.values()));
        assertEquals(Map.of(CorednsProvider.GROUP_PROPERTY, "g1"), provider.records().stream()
                .filter(e -> e.dnsName().equals("grp.strict.example.org") && e.recordType().equals("A")).findFirst().orElseThrow().providerSpecific());
        assertEquals("{\"host\":\"203.0.113.31\",\"targetstrip\":1,\"owner\":\"other\"}",
                etcd.range("/skydns/org/example/strict/theirs/").values().iterator().next(), "another owner's value untouched");
        assertTrue(r.reconcile(new Desired(List.of(ep("mine.strict.example.org", "A", "crd/x/y", 0, "203.0.113.30"), grouped), Set.of()))
                .changes().isEmpty(), "stable");
    }
    /**
     * ExternalDNS's plan compares provider-specific properties: a group changed alone is an update, and the ownership
     * claim carries the record's group (ExternalDNS copies the record's properties onto its TXT claim).
     */
    @Test
    void aGroupChangedAloneIsAnUpdateAndTheClaimCarriesTheGroup() throws Exception {
        var r = reconciler("grouper");
        String data = "/skydns/org/example/regroup/";
        String claim = "/skydns/org/example/a-regroup/";
        r.reconcile(Desired.of(grouped("g1")));
        assertEquals(List.of("{\"host\":\"203.0.113.50\",\"targetstrip\":1,\"group\":\"g1\"}"), List.copyOf(etcd.range(data).values()));
        assertEquals(List.of("{\"text\":\"\\\"heritage=external-dns,external-dns/owner=grouper,external-dns/resource=crd/x/regroup\\\"\",\"targetstrip\":1,\"group\":\"g1\"}"),
                List.copyOf(etcd.range(claim).values()), "the claim carries the group");

        var moved = r.reconcile(Desired.of(grouped("g2")));
        assertEquals(1, moved.changes().updateNew().size(), moved.changes().describe());
        assertEquals(List.of("{\"host\":\"203.0.113.50\",\"targetstrip\":1,\"group\":\"g2\"}"), List.copyOf(etcd.range(data).values()));
        assertEquals(List.of("{\"text\":\"\\\"heritage=external-dns,external-dns/owner=grouper,external-dns/resource=crd/x/regroup\\\"\",\"targetstrip\":1,\"group\":\"g2\"}"),
                List.copyOf(etcd.range(claim).values()), "the claim follows the group");
        assertTrue(reconciler("grouper").reconcile(Desired.of(grouped("g2"))).changes().isEmpty(), "stable after a restart");

        var ungrouped = r.reconcile(Desired.of(ep("regroup.example.org", "A", "crd/x/regroup", 0, "203.0.113.50")));
        assertEquals(1, ungrouped.changes().updateNew().size(), ungrouped.changes().describe());
        assertEquals(List.of("{\"host\":\"203.0.113.50\",\"targetstrip\":1}"), List.copyOf(etcd.range(data).values()));
        r.reconcile(Desired.of());
        assertTrue(etcd.range(data).isEmpty() && etcd.range(claim).isEmpty());
    }

    static Endpoint grouped(String group) {
        return new Endpoint("regroup.example.org", "A", List.of("203.0.113.50"), 0, Map.of(Endpoint.RESOURCE_LABEL, "crd/x/regroup"), "",
                Map.of(CorednsProvider.GROUP_PROPERTY, group));
    }
}
