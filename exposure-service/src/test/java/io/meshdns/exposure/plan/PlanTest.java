package io.meshdns.exposure.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.meshdns.exposure.endpoint.Endpoint;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Table-driven: each row is current × desired × policy × filter → the expected plan lines. */
class PlanTest {

    static final String ME = "me";

    static Endpoint cur(String owner, String name, String type, String... targets) {
        var labels = new TreeMap<String, String>();
        if (!owner.isEmpty()) {
            labels.put(Endpoint.OWNER_LABEL, owner.replace("~", ""));
            labels.put(Endpoint.RESOURCE_LABEL, "service/ns/" + name.split("\\.")[0]);
        }
        if (owner.endsWith("~")) labels.put(Endpoint.SHARED_LABEL, "true");
        return new Endpoint(name, type, List.of(targets), 300, labels, "");
    }

    static Endpoint want(String resource, String name, String type, String... targets) {
        return new Endpoint(name, type, List.of(targets), 0, Map.of(Endpoint.RESOURCE_LABEL, resource), "");
    }

    record Row(String name, List<Endpoint> current, List<Endpoint> desired, Policy policy, DomainFilter filter,
               Set<String> errored, List<String> expected, int mismatches) {
        @Override
        public String toString() {
            return name;
        }
    }

    static DomainFilter include(String... d) {
        return new DomainFilter(List.of(d), List.of(), Optional.empty(), Optional.empty());
    }

    static Stream<Arguments> rows() {
        var x = "service/ns/x";
        return Stream.of(
                new Row("create into empty zone", List.of(), List.of(want(x, "x.a.org", "A", "1.1.1.1")), Policy.SYNC,
                        DomainFilter.ALL, Set.of(), List.of("CREATE x.a.org/A [1.1.1.1]"), 0),
                new Row("nothing to do when equal", List.of(cur(ME, "x.a.org", "A", "1.1.1.1")),
                        List.of(want(x, "x.a.org", "A", "1.1.1.1")), Policy.SYNC, DomainFilter.ALL, Set.of(), List.of(), 0),
                new Row("unset TTL never forces an update; a set one does", List.of(cur(ME, "x.a.org", "A", "1.1.1.1")),
                        List.of(want(x, "x.a.org", "A", "1.1.1.1").withTtl(60)), Policy.SYNC, DomainFilter.ALL, Set.of(),
                        List.of("UPDATE x.a.org/A [1.1.1.1] -> [1.1.1.1]"), 0),
                new Row("targets changed", List.of(cur(ME, "x.a.org", "A", "1.1.1.1")),
                        List.of(want(x, "x.a.org", "A", "1.1.1.2")), Policy.SYNC, DomainFilter.ALL, Set.of(),
                        List.of("UPDATE x.a.org/A [1.1.1.1] -> [1.1.1.2]"), 0),
                new Row("upsert-only does not delete", List.of(cur(ME, "x.a.org", "A", "1.1.1.1")), List.of(),
                        Policy.UPSERT_ONLY, DomainFilter.ALL, Set.of(), List.of(), 0),
                new Row("create-only does not update", List.of(cur(ME, "x.a.org", "A", "1.1.1.1")),
                        List.of(want(x, "x.a.org", "A", "1.1.1.2"), want(x, "y.a.org", "A", "1.1.1.3")), Policy.CREATE_ONLY,
                        DomainFilter.ALL, Set.of(), List.of("CREATE y.a.org/A [1.1.1.3]"), 0),
                new Row("sync deletes ours only", List.of(cur(ME, "x.a.org", "A", "1.1.1.1"), cur("other", "o.a.org", "A", "1.1.1.9"),
                        cur("", "u.a.org", "A", "1.1.1.8")), List.of(), Policy.SYNC, DomainFilter.ALL, Set.of(),
                        List.of("DELETE x.a.org/A [1.1.1.1]"), 0),
                new Row("foreign owner: left alone, counted", List.of(cur("other", "x.a.org", "A", "1.1.1.1")),
                        List.of(want(x, "x.a.org", "A", "1.1.1.2")), Policy.SYNC, DomainFilter.ALL, Set.of(), List.of(), 1),
                new Row("unowned record: left alone, counted", List.of(cur("", "x.a.org", "A", "1.1.1.1")),
                        List.of(want(x, "x.a.org", "A", "1.1.1.2")), Policy.SYNC, DomainFilter.ALL, Set.of(), List.of(), 1),
                new Row("join another owner's share", List.of(cur("other~", "x.a.org", "A", "1.1.1.1")),
                        List.of(want(x, "x.a.org", "A", "1.1.1.2")), Policy.SYNC, DomainFilter.ALL, Set.of(),
                        List.of("CREATE x.a.org/A [1.1.1.2]"), 0),
                new Row("never join a CNAME", List.of(cur("other~", "x.a.org", "CNAME", "a.org")),
                        List.of(want(x, "x.a.org", "CNAME", "b.org")), Policy.SYNC, DomainFilter.ALL, Set.of(), List.of(), 1),
                new Row("shared TTL is not compared", List.of(cur("me~", "x.a.org", "A", "1.1.1.1")),
                        List.of(want(x, "x.a.org", "A", "1.1.1.1").withTtl(5)), Policy.SYNC, DomainFilter.ALL, Set.of(), List.of(), 0),
                new Row("errored resource keeps its records", List.of(cur(ME, "x.a.org", "A", "1.1.1.1")), List.of(),
                        Policy.SYNC, DomainFilter.ALL, Set.of("service/ns/x"), List.of(), 0),
                new Row("domain filter hides both sides", List.of(cur(ME, "x.b.org", "A", "1.1.1.1")),
                        List.of(want(x, "y.b.org", "A", "1.1.1.2"), want(x, "z.a.org", "A", "1.1.1.3")), Policy.SYNC,
                        include("a.org"), Set.of(), List.of("CREATE z.a.org/A [1.1.1.3]"), 0),
                new Row("exclude and leading-dot include", List.of(),
                        List.of(want(x, "a.org", "A", "1.1.1.1"), want(x, "x.a.org", "A", "1.1.1.2"), want(x, "x.no.a.org", "A", "1.1.1.3")),
                        Policy.SYNC, new DomainFilter(List.of(".a.org"), List.of("no.a.org"), Optional.empty(), Optional.empty()),
                        Set.of(), List.of("CREATE x.a.org/A [1.1.1.2]"), 0),
                new Row("regex filter with exclusion", List.of(),
                        List.of(want(x, "api.a.org", "A", "1.1.1.1"), want(x, "web.a.org", "A", "1.1.1.2"), want(x, "api-int.a.org", "A", "1.1.1.3")),
                        Policy.SYNC, new DomainFilter(List.of(), List.of(), Optional.of(Pattern.compile("^api")),
                        Optional.of(Pattern.compile("-int\\."))), Set.of(), List.of("CREATE api.a.org/A [1.1.1.1]"), 0),
                new Row("conflict: smallest resource wins", List.of(),
                        List.of(want("service/ns/b", "x.a.org", "CNAME", "b.org"), want("ingress/ns/a", "x.a.org", "CNAME", "a.org")),
                        Policy.SYNC, DomainFilter.ALL, Set.of(), List.of("CREATE x.a.org/CNAME [a.org]"), 0),
                new Row("conflict: current owner resource stays", List.of(cur(ME, "x.a.org", "CNAME", "b.org")),
                        List.of(want("service/ns/x", "x.a.org", "CNAME", "b.org"), want("ingress/ns/a", "x.a.org", "CNAME", "a.org")),
                        Policy.SYNC, DomainFilter.ALL, Set.of(), List.of(), 0),
                new Row("CNAME next to A at one name is dropped", List.of(),
                        List.of(want(x, "x.a.org", "CNAME", "b.org"), want(x, "x.a.org", "A", "1.1.1.1")),
                        Policy.SYNC, DomainFilter.ALL, Set.of(), List.of("CREATE x.a.org/A [1.1.1.1]"), 0),
                new Row("case and trailing dot do not matter", List.of(cur(ME, "X.A.org.", "CNAME", "B.org.")),
                        List.of(want(x, "x.a.ORG", "CNAME", "b.org")), Policy.SYNC, DomainFilter.ALL, Set.of(), List.of(), 0),
                new Row("SOA and unmanaged types are invisible", List.of(cur("", "a.org", "NSEC", "whatever")), List.of(),
                        Policy.SYNC, DomainFilter.ALL, Set.of(), List.of(), 0)
        ).map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void plan(Row row) {
        var result = Plan.calculate(new Plan.Input(row.current(), row.desired(), row.policy(), row.filter(), ME, row.errored()));
        assertEquals(row.expected(), lines(result.changes()), row.name());
        assertEquals(row.mismatches(), result.ownerMismatches(), row.name() + " " + result.conflicts());
    }

    static List<String> lines(Changes c) {
        var out = new ArrayList<String>();
        c.create().forEach(e -> out.add("CREATE " + e.key() + " " + e.targets()));
        for (int i = 0; i < c.updateNew().size(); i++) {
            out.add("UPDATE " + c.updateNew().get(i).key() + " " + c.updateOld().get(i).targets() + " -> " + c.updateNew().get(i).targets());
        }
        c.delete().forEach(e -> out.add("DELETE " + e.key() + " " + e.targets()));
        return out;
    }
    /** ExternalDNS compares provider-specific properties: a stored one (CoreDNS's group) changed alone is an update. */
    @org.junit.jupiter.api.Test
    void aStoredPropertyChangedAloneIsAnUpdate() {
        var stored = Set.of("coredns/group");
        Endpoint g1 = cur(ME, "x.a.org", "A", "1.1.1.1").withProviderSpecific(Map.of("coredns/group", "g1"));
        Endpoint wantG2 = want("service/ns/x", "x.a.org", "A", "1.1.1.1").withProviderSpecific(Map.of("coredns/group", "g2"));
        Endpoint wantNone = want("service/ns/x", "x.a.org", "A", "1.1.1.1");
        Endpoint wantOther = wantG2.withProviderSpecific(Map.of("coredns/group", "g1", "aws/weight", "5"));
        assertEquals(List.of("UPDATE x.a.org/A [1.1.1.1] -> [1.1.1.1]"), plan(g1, wantG2, stored));
        assertEquals(List.of("UPDATE x.a.org/A [1.1.1.1] -> [1.1.1.1]"), plan(g1, wantNone, stored), "a group removed");
        assertEquals(List.of(), plan(g1, wantOther, stored), "a property the provider does not store is not compared");
        assertEquals(List.of(), plan(g1, wantG2, Set.of()), "nothing is compared for a provider that stores none");
        assertEquals(List.of(), plan(cur("me~", "x.a.org", "A", "1.1.1.1"), wantG2, stored), "shared RRsets: not compared");
    }

    static List<String> plan(Endpoint current, Endpoint desired, Set<String> stored) {
        return lines(Plan.calculate(new Plan.Input(List.of(current), List.of(desired), Policy.SYNC, DomainFilter.ALL, ME, Set.of(),
                RecordTypeFilter.ALL, stored)).changes());
    }
}
