package io.meshdns.exposure.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.plan.Changes;
import io.meshdns.exposure.source.Problem;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** ExternalDNS's --events-emit reasons from one applied pass (controller/events.go): which, on which object, what text. */
class RecordEventsTest {

    static Endpoint a(String name, String resource, String... ips) {
        return new Endpoint(name, "A", List.of(ips), 300, Map.of(Endpoint.RESOURCE_LABEL, resource), "");
    }

    static Reconciler.Outcome outcome(Changes changes, boolean applied, List<Problem> problems) {
        return new Reconciler.Outcome(changes, List.of(), List.of(), 0, applied, Map.of(), problems, Set.of());
    }

    static List<String> lines(List<Problem> events) {
        return events.stream().map(p -> p.kind() + " " + p.namespace() + "/" + p.name() + " " + p.reason() + " " + (p.normal() ? "Normal" : "Warning")
                + " " + p.message()).toList();
    }

    static final Changes CHANGES = new Changes(List.of(a("new.example.org", "gateway/istio-system/edge", "192.0.2.1")),
            List.of(a("up.example.org", "service/shop/web", "192.0.2.2")), List.of(a("up.example.org", "service/shop/web", "192.0.2.3")),
            List.of(a("old.example.org", "virtualservice/shop/cart", "192.0.2.4")));

    @Test
    void readyDeletedAndErrorAsExternalDnsEmitsThem() {
        var all = Set.of("RecordReady", "RecordDeleted", "RecordError");
        assertEquals(List.of(
                "Gateway istio-system/edge RecordReady Normal (external-dns) record:new.example.org,owner:me,type:A,ttl:300,targets:192.0.2.1",
                "Service shop/web RecordReady Normal (external-dns) record:up.example.org,owner:me,type:A,ttl:300,targets:192.0.2.3",
                "VirtualService shop/cart RecordDeleted Normal (external-dns) record:old.example.org,owner:me,type:A,ttl:300,targets:192.0.2.4"),
                lines(RecordEvents.of(outcome(CHANGES, true, List.of()), "me", all)));
        // the provider refused the Service's record: RecordError (a Warning) instead of RecordReady
        var refused = Problem.about("service/shop/web", Problem.INVALID, "refused").orElseThrow();
        assertEquals(List.of("Service shop/web RecordError Warning (external-dns) record:up.example.org,owner:me,type:A,ttl:300,targets:192.0.2.3"),
                lines(RecordEvents.of(outcome(CHANGES, true, List.of(refused)), "me", Set.of("RecordError"))));
    }

    @Test
    void onlyWhatIsAskedForAndOnlyWhenApplied() {
        assertEquals(List.of(), RecordEvents.of(outcome(CHANGES, true, List.of()), "me", Set.of()));
        assertEquals(List.of(), RecordEvents.of(outcome(CHANGES, false, List.of()), "me", Set.of("RecordReady")), "a dry run writes nothing");
        assertEquals(1, RecordEvents.of(outcome(CHANGES, true, List.of()), "me", Set.of("RecordDeleted")).size());
    }
}
