package io.meshdns.exposure.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.plan.DomainFilter;
import io.meshdns.exposure.plan.Plan;
import io.meshdns.exposure.plan.Policy;
import io.meshdns.exposure.provider.RecordOp;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The registry's pure reading of a zone: who owns what. */
class TxtRegistryTest {
    static final String CLAIM = "heritage=external-dns,external-dns/owner=me,external-dns/resource=service/shop/s8";
    final TxtRegistry registry = new TxtRegistry(null, "me", TxtNameMapper.plain(), 0);

    /**
     * Our claim for s8 A lives at a-s8, the typed name; someone else's text in that same TXT RRset is not
     * ours, though a-s8 is also the legacy (untyped) claim name of records at a-s8. ExternalDNS reads a
     * name with a type prefix as a typed claim only, and so do we: the foreign text is left alone, and
     * deleting it would also have taken s8's claim, leaving s8 nobody's for good.
     */
    @Test
    void foreignTextAtOurTypedClaimNameIsNotClaimedByIt() {
        var view = registry.view(List.of(Endpoint.of("s8.z.it", "A", 0, "10.0.0.8"),
                Endpoint.of("a-s8.z.it", "TXT", 0, "plain text at our claim name", CLAIM)));
        assertEquals(List.of(new Endpoint("s8.z.it", "A", List.of("10.0.0.8"), 0,
                        Map.of(Endpoint.OWNER_LABEL, "me", Endpoint.RESOURCE_LABEL, "service/shop/s8"), ""),
                Endpoint.of("a-s8.z.it", "TXT", 0, "plain text at our claim name")), view.current());
        assertEquals(List.of(), view.upgrades(), "no typed claim is made for the foreign text");
        var desired = new Endpoint("s8.z.it", "A", List.of("10.0.0.8"), 0, Map.of(Endpoint.RESOURCE_LABEL, "service/shop/s8"), "");
        var plan = Plan.calculate(new Plan.Input(view.current(), List.of(desired), Policy.SYNC, DomainFilter.ALL, "me", Set.of()));
        assertEquals("no changes", plan.changes().describe());
    }

    /** Our claim added to a TXT RRset that holds someone's text takes that RRset's TTL, so BIND9 keeps theirs as it was. */
    @Test
    void aClaimAddedBesideForeignTextKeepsTheirTtl() {
        var view = registry.view(List.of(Endpoint.of("a-s8.z.it", "TXT", 300, "plain text at our claim name")));
        var desired = new Endpoint("s8.z.it", "A", List.of("10.0.0.8"), 0, Map.of(Endpoint.RESOURCE_LABEL, "service/shop/s8"), "");
        var plan = Plan.calculate(new Plan.Input(view.current(), List.of(desired), Policy.SYNC, DomainFilter.ALL, "me", Set.of()));
        var claimAdd = registry.units(view, plan.changes()).get(0).ops().get(0);
        assertEquals(new RecordOp.AddRecords(Endpoint.of("a-s8.z.it", "TXT", 300, CLAIM)), claimAdd);
    }

    /** A real legacy claim (at the record's own name, no type prefix) still counts, and is upgraded. */
    @Test
    void legacyClaimAtAnUntypedNameIsStillOurs() {
        String legacy = "heritage=external-dns,external-dns/owner=me,external-dns/resource=service/shop/web";
        var view = registry.view(List.of(Endpoint.of("web.z.it", "A", 0, "10.0.0.1"), Endpoint.of("web.z.it", "TXT", 0, legacy)));
        assertEquals("me", view.current().get(0).owner());
        assertEquals(1, view.upgrades().size(), "the typed claim is added next to the legacy one");
    }

    /**
     * The operations of one change, in the order a crash between two writes can survive: a claim is written
     * before its data and deleted after it, so an interruption leaves at worst a claim without data (ours
     * again next pass), never data without a claim (nobody's for good).
     */
    @Test
    void claimsAreWrittenBeforeTheirDataAndDeletedAfterIt() {
        var web = new Endpoint("web.z.it", "A", List.of("10.0.0.2"), 0, Map.of(Endpoint.RESOURCE_LABEL, "service/shop/web"), "");
        var txt = new Endpoint("t.z.it", "TXT", List.of("v=2"), 0, Map.of(Endpoint.RESOURCE_LABEL, "crd/shop/t"), "");
        var view = registry.view(List.of(
                Endpoint.of("old.z.it", "A", 0, "10.0.0.9"),
                Endpoint.of("a-old.z.it", "TXT", 0, "heritage=external-dns,external-dns/owner=me,external-dns/resource=service/shop/old"),
                Endpoint.of("web.z.it", "A", 0, "10.0.0.1"),
                Endpoint.of("a-web.z.it", "TXT", 0, "heritage=external-dns,external-dns/owner=me,external-dns/resource=service/shop/former"),
                Endpoint.of("t.z.it", "TXT", 0, "v=1"),
                Endpoint.of("txt-t.z.it", "TXT", 0, "heritage=external-dns,external-dns/owner=me,external-dns/resource=crd/shop/t")));
        var created = new Endpoint("new.z.it", "A", List.of("10.0.0.3"), 0, Map.of(Endpoint.RESOURCE_LABEL, "service/shop/new"), "");
        var plan = Plan.calculate(new Plan.Input(view.current(), List.of(web, txt, created), Policy.SYNC, DomainFilter.ALL, "me", Set.of()));
        var lines = registry.units(view, plan.changes()).stream()
                .map(u -> u.action() + " " + u.change().dnsName() + ": " + String.join(" / ", u.ops().stream().map(TxtRegistryTest::op).toList()))
                .toList();
        assertEquals(List.of(
                "CREATE new.z.it: add a-new.z.it TXT claim resource=service/shop/new / replace new.z.it A [10.0.0.3]",
                "UPDATE t.z.it: delete t.z.it TXT [v=1] / add t.z.it TXT [v=2]",
                "UPDATE web.z.it: add a-web.z.it TXT claim resource=service/shop/web / replace web.z.it A [10.0.0.2]"
                        + " / delete a-web.z.it TXT claim resource=service/shop/former",
                "DELETE old.z.it: delete-rrset old.z.it A / delete a-old.z.it TXT claim resource=service/shop/old"), lines);
    }

    static String op(RecordOp op) {
        Endpoint e = op.endpoint();
        String what = e.dnsName() + " " + e.recordType() + " " + (e.targets().size() == 1 && e.targets().get(0).startsWith("heritage=")
                ? "claim resource=" + e.targets().get(0).replaceAll(".*resource=", "") : e.targets().toString());
        if (op instanceof RecordOp.ReplaceRRset) return "replace " + what;
        if (op instanceof RecordOp.DeleteRRset) return "delete-rrset " + e.dnsName() + " " + e.recordType();
        if (op instanceof RecordOp.AddRecords) return "add " + what;
        return "delete " + what;
    }
}
