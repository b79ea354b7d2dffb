package io.meshdns.exposure.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.plan.DomainFilter;
import io.meshdns.exposure.plan.Plan;
import io.meshdns.exposure.plan.Policy;
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

    /** A real legacy claim (at the record's own name, no type prefix) still counts, and is upgraded. */
    @Test
    void legacyClaimAtAnUntypedNameIsStillOurs() {
        String legacy = "heritage=external-dns,external-dns/owner=me,external-dns/resource=service/shop/web";
        var view = registry.view(List.of(Endpoint.of("web.z.it", "A", 0, "10.0.0.1"), Endpoint.of("web.z.it", "TXT", 0, legacy)));
        assertEquals("me", view.current().get(0).owner());
        assertEquals(1, view.upgrades().size(), "the typed claim is added next to the legacy one");
    }
}
