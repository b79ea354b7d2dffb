package io.meshdns.exposure.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.meshdns.exposure.endpoint.Endpoint;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@code managed-record-types} / {@code exclude-record-types}: a type outside the set is never touched. */
class RecordTypeFilterTest {

    static final String ME = PlanTest.ME;

    @Test
    void unsetManagesEveryTypeThePlanCanAndExcludeRemovesFromIt() {
        assertEquals(RecordTypeFilter.SUPPORTED, RecordTypeFilter.of(List.of(), List.of()).managed());
        assertEquals(Set.of("A", "AAAA"), RecordTypeFilter.of(List.of("a", " AAAA ", "CNAME"), List.of("cname")).managed());
        assertEquals(Set.of("A", "AAAA", "SRV", "TXT", "NS", "MX", "PTR"), RecordTypeFilter.of(List.of(), List.of("CNAME")).managed());
    }

    @Test
    void anUnknownTypeFailsNamingItsKey() {
        var e = assertThrows(IllegalArgumentException.class, () -> RecordTypeFilter.of(List.of("A", "HTTPS"), List.of()));
        assertTrue(e.getMessage().startsWith("meshdns.exposure.managed-record-types: unknown record type 'HTTPS'"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> RecordTypeFilter.of(List.of(), List.of("bogus")));
        assertTrue(e.getMessage().startsWith("meshdns.exposure.exclude-record-types: unknown record type 'bogus'"), e.getMessage());
    }

    @Test
    void anUnmanagedTypeIsNeitherCreatedNorUpdatedNorDeleted() {
        var x = "service/ns/x";
        List<Endpoint> current = List.of(PlanTest.cur(ME, "x.a.org", "AAAA", "2001:db8::1"),
                PlanTest.cur(ME, "y.a.org", "CNAME", "old.a.org"), PlanTest.cur(ME, "z.a.org", "A", "192.0.2.9"));
        List<Endpoint> desired = List.of(PlanTest.want(x, "x.a.org", "A", "192.0.2.1"),
                PlanTest.want(x, "w.a.org", "CNAME", "x.a.org"), PlanTest.want("service/ns/y", "y.a.org", "CNAME", "new.a.org"));
        var types = RecordTypeFilter.of(List.of("A", "AAAA", "CNAME"), List.of("CNAME", "AAAA"));
        Changes c = Plan.calculate(new Plan.Input(current, desired, Policy.SYNC, DomainFilter.ALL, ME, Set.of(), types)).changes();
        assertEquals(List.of("x.a.org"), c.create().stream().map(Endpoint::dnsName).toList(), "only the A is created");
        assertEquals(List.of(), c.updateNew(), "the CNAME we own is not updated");
        assertEquals(List.of("z.a.org"), c.delete().stream().map(Endpoint::dnsName).toList(), "the AAAA we own is not deleted");

        // the same input with every type managed touches all of them
        Changes all = Plan.calculate(new Plan.Input(current, desired, Policy.SYNC, DomainFilter.ALL, ME, Set.of())).changes();
        assertEquals(2, all.create().size(), all.describe());
        assertEquals(1, all.updateNew().size(), all.describe());
        assertEquals(2, all.delete().size(), all.describe());
    }
}
