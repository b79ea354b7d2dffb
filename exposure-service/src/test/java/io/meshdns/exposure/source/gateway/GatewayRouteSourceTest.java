package io.meshdns.exposure.source.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.meshdns.exposure.source.ObjectTranslation;
import io.meshdns.exposure.source.Problem;
import io.meshdns.exposure.source.Source;
import io.meshdns.exposure.source.SourceFilter;
import io.meshdns.exposure.source.SourceOutput;
import io.meshdns.exposure.source.SourceSettings;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** ExternalDNS v0.22's documented Gateway API route cases (source/gateway*_test.go, docs/sources/gateway-api.md), one row each. */
class GatewayRouteSourceTest {

    static final KubernetesSerialization YAML = new KubernetesSerialization();

    static String gateway(String ns, String name, String listeners, String addresses, String extraMeta) {
        return gateway(ns, name, listeners, "", addresses, extraMeta);
    }

    /** {@code extraSpec}: further fields of the spec, each as a line of its own ({@code "\n  field: value"}). */
    static String gateway(String ns, String name, String listeners, String extraSpec, String addresses, String extraMeta) {
        return """
                apiVersion: gateway.networking.k8s.io/v1
                kind: Gateway
                metadata: {name: %s, namespace: %s%s}
                spec:
                  gatewayClassName: x
                  listeners: %s%s
                status:
                  addresses: %s
                ---
                """.formatted(name, ns, extraMeta, listeners, extraSpec, addresses);
    }

    static final String HTTP_ANY = "[{name: http, protocol: HTTP, port: 80}]";
    static final String IP = "[{type: IPAddress, value: 203.0.113.10}]";

    static String route(String kind, String ns, String name, String hostnames, String parentRefs, String parents, long generation,
                        String annotations) {
        String version = kind.equals("HTTPRoute") || kind.equals("GRPCRoute") ? "v1" : "v1alpha2";
        return """
                apiVersion: gateway.networking.k8s.io/%s
                kind: %s
                metadata: {name: %s, namespace: %s, generation: %d, annotations: {%s}}
                spec:
                  hostnames: %s
                  parentRefs: %s
                status:
                  parents: %s
                ---
                """.formatted(version, kind, name, ns, generation, annotations, hostnames, parentRefs, parents);
    }

    static String accepted(String parentRef, long generation) {
        return "[{parentRef: " + parentRef + ", controllerName: x, conditions: [{type: Accepted, status: \"True\", observedGeneration: "
                + generation + ", reason: Accepted, lastTransitionTime: \"2024-01-01T00:00:00Z\", message: ok}]}]";
    }

    static String http(String hostnames, String ref, String annotations) {
        return route("HTTPRoute", "default", "web", hostnames, "[" + ref + "]", accepted(ref, 1), 1, annotations);
    }

    static final String GW = "{name: gw}";

    record Result(Set<String> records, List<Problem> problems) {
    }

    static Result run(GatewayFilter filter, String... docs) {
        return run(filter, SourceFilter.ALL, docs);
    }

    /** {@code sourceFilter}: meshdns.exposure.namespace / label-filter / annotation-filter of the pass. */
    static Result run(GatewayFilter filter, SourceFilter sourceFilter, String... docs) {
        var objects = new ArrayList<HasMetadata>();
        for (String doc : String.join("", docs).split("(?m)^---\\s*$")) {
            if (doc.isBlank()) continue;
            objects.add((HasMetadata) YAML.unmarshal(doc));
        }
        List<Source> sources = Arrays.stream(RouteKind.values()).<Source>map(k -> new GatewayRouteSource(k, filter)).toList();
        var translation = new ObjectTranslation(sources, new SourceSettings(Optional.empty(), false, Optional.empty()),
                Set.of("gateway-httproute", "gateway-grpcroute", "gateway-tlsroute", "gateway-tcproute", "gateway-udproute"), sourceFilter);
        SourceOutput out = translation.translate(objects);
        var records = new TreeSet<String>();
        out.endpoints().forEach(e -> records.add(e.dnsName() + " " + e.recordType() + " " + String.join(",", e.targets())
                + " " + e.labels().get("resource")));
        return new Result(records, out.problems());
    }

    static Result run(String... docs) {
        return run(GatewayFilter.ALL, docs);
    }

    @Test
    void routeHostnamesPointAtTheGatewayAddresses() {
        var r = run(gateway("default", "gw", HTTP_ANY, "[{type: IPAddress, value: 203.0.113.10}, {type: IPAddress, value: 2001:db8::1},"
                + " {type: IPAddress, value: 203.0.113.10}]", ""), http("[test.example.internal]", GW, ""));
        assertEquals(Set.of("test.example.internal A 203.0.113.10 httproute/default/web",
                "test.example.internal AAAA 2001:db8::1 httproute/default/web"), r.records());
        assertTrue(r.problems().isEmpty(), r.problems().toString());
    }

    @Test
    void aHostnameAddressBecomesACnameAndTheTargetAnnotationWins() {
        assertEquals(Set.of("a.example.internal CNAME lb.example.net httproute/default/web"),
                run(gateway("default", "gw", HTTP_ANY, "[{type: Hostname, value: lb.example.net}]", ""),
                        http("[a.example.internal]", GW, "")).records());
        assertEquals(Set.of("a.example.internal A 198.51.100.9 httproute/default/web"),
                run(gateway("default", "gw", HTTP_ANY, IP, ", annotations: {external-dns.alpha.kubernetes.io/target: 198.51.100.9}"),
                        http("[a.example.internal]", GW, "")).records());
    }

    @Test
    void notAcceptedForTheCurrentGenerationPublishesNothingAndSaysSo() {
        String stale = route("HTTPRoute", "default", "web", "[a.example.internal]", "[" + GW + "]", accepted(GW, 1), 2, "");
        var r = run(gateway("default", "gw", HTTP_ANY, IP, ""), stale);
        assertEquals(Set.of(), r.records());
        assertEquals(Problem.ROUTE_NOT_ACCEPTED, r.problems().get(0).reason());
        assertFalse(r.problems().get(0).keepsRecords(), "a withdrawn acceptance removes the records");
        String refused = route("HTTPRoute", "default", "web", "[a.example.internal]", "[" + GW + "]",
                accepted(GW, 1).replace("\"True\"", "\"False\""), 1, "");
        assertEquals(Set.of(), run(gateway("default", "gw", HTTP_ANY, IP, ""), refused).records());
        String noStatus = route("HTTPRoute", "default", "web", "[a.example.internal]", "[" + GW + "]", "[]", 1, "");
        assertEquals(Problem.ROUTE_NOT_ACCEPTED, run(gateway("default", "gw", HTTP_ANY, IP, ""), noStatus).problems().get(0).reason());
    }

    @Test
    void aStatusParentNotInSpecParentRefsOrNotAGatewayIsIgnored() {
        String other = route("HTTPRoute", "default", "web", "[a.example.internal]", "[{name: other}]", accepted(GW, 1), 1, "");
        assertEquals(Set.of(), run(gateway("default", "gw", HTTP_ANY, IP, ""), other).records());
        String ref = "{name: gw, kind: ListenerSetX, group: example.io}";
        assertEquals(Set.of(), run(gateway("default", "gw", HTTP_ANY, IP, ""), http("[a.example.internal]", ref, "")).records());
    }

    @Test
    void theListenerHostnameNarrowsOrFillsTheRouteHostnames() {
        String wildcard = "[{name: http, protocol: HTTP, port: 80, hostname: \"*.example.internal\"}]";
        assertEquals(Set.of("foo.example.internal A 203.0.113.10 httproute/default/web"),
                run(gateway("default", "gw", wildcard, IP, ""), http("[foo.example.internal]", GW, "")).records());
        String exact = "[{name: http, protocol: HTTP, port: 80, hostname: bar.example.internal}]";
        assertEquals(Set.of("bar.example.internal A 203.0.113.10 httproute/default/web"),
                run(gateway("default", "gw", exact, IP, ""), http("[\"*.example.internal\"]", GW, "")).records());
        // no route hostnames: the listener's
        assertEquals(Set.of("bar.example.internal A 203.0.113.10 httproute/default/web"),
                run(gateway("default", "gw", exact, IP, ""), http("[]", GW, "")).records());
        // outside: a problem, the matching host still published
        var r = run(gateway("default", "gw", wildcard, IP, ""), http("[foo.example.internal, test.other.internal, example.internal]", GW, ""));
        assertEquals(Set.of("foo.example.internal A 203.0.113.10 httproute/default/web"), r.records());
        assertEquals(Problem.HOSTNAME_OUTSIDE_LISTENER, r.problems().get(0).reason());
        assertTrue(r.problems().get(0).message().contains("test.other.internal"), r.problems().get(0).message());
        // neither has a hostname: nothing
        assertEquals(Set.of(), run(gateway("default", "gw", HTTP_ANY, IP, ""), http("[]", GW, "")).records());
    }

    @Test
    void sectionNamePortAndProtocolPickTheListener() {
        String two = "[{name: a, protocol: HTTP, port: 80, hostname: a.example.internal}, {name: b, protocol: HTTPS, port: 443,"
                + " hostname: b.example.internal}, {name: t, protocol: TCP, port: 9000, hostname: t.example.internal}]";
        assertEquals(Set.of("b.example.internal A 203.0.113.10 httproute/default/web"),
                run(gateway("default", "gw", two, IP, ""), http("[]", "{name: gw, sectionName: b}", "")).records());
        assertEquals(Set.of("a.example.internal A 203.0.113.10 httproute/default/web"),
                run(gateway("default", "gw", two, IP, ""), http("[]", "{name: gw, port: 80}", "")).records());
        assertEquals(Set.of("a.example.internal A 203.0.113.10 httproute/default/web", "b.example.internal A 203.0.113.10 httproute/default/web"),
                run(gateway("default", "gw", two, IP, ""), http("[]", GW, "")).records(), "HTTPS counts as HTTP; TCP does not");
    }

    @Test
    void allowedRoutesNamespacesSameAllSelectorAndKinds() {
        String other = route("HTTPRoute", "team", "web", "[a.example.internal]", "[{name: gw, namespace: default}]",
                accepted("{name: gw, namespace: default}", 1), 1, "");
        assertEquals(Set.of(), run(gateway("default", "gw", HTTP_ANY, IP, ""), other).records(), "Same is the default");
        assertEquals(Set.of("a.example.internal A 203.0.113.10 httproute/team/web"), run(gateway("default", "gw",
                "[{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]", IP, ""), other).records());
        String selector = "[{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: Selector, selector: {matchLabels: {dns: on}}}}}]";
        String ns = "apiVersion: v1\nkind: Namespace\nmetadata: {name: team, labels: {dns: \"on\"}}\n---\n";
        assertEquals(Set.of("a.example.internal A 203.0.113.10 httproute/team/web"),
                run(gateway("default", "gw", selector, IP, ""), ns, other).records());
        assertEquals(Set.of(), run(gateway("default", "gw", selector, IP, ""), ns.replace("\"on\"", "off"), other).records());
        String kinds = "[{name: http, protocol: HTTP, port: 80, allowedRoutes: {kinds: [{kind: GRPCRoute}]}}]";
        assertEquals(Set.of(), run(gateway("default", "gw", kinds, IP, ""), http("[a.example.internal]", GW, "")).records());
    }

    @Test
    void tcpAndUdpRoutesTakeTheHostnameAnnotationAndATlsListenerTakesTcp() {
        String tcp = route("TCPRoute", "default", "db", "[]", "[" + GW + "]", accepted(GW, 1), 1,
                "external-dns.alpha.kubernetes.io/hostname: db.example.internal");
        assertEquals(Set.of("db.example.internal A 203.0.113.10 tcproute/default/db"),
                run(gateway("default", "gw", "[{name: tls, protocol: TLS, port: 5432}]", IP, ""), tcp).records());
        String udp = route("UDPRoute", "default", "dns", "[]", "[" + GW + "]", accepted(GW, 1), 1, "");
        assertEquals(Set.of(), run(gateway("default", "gw", "[{name: u, protocol: UDP, port: 53}]", IP, ""), udp).records(),
                "no annotation, no name");
    }

    @Test
    void hostnameSourceAnnotationAndTtl() {
        String both = "external-dns.alpha.kubernetes.io/hostname: ann.example.internal, external-dns.alpha.kubernetes.io/ttl: \"60\"";
        assertEquals(Set.of("ann.example.internal A 203.0.113.10 httproute/default/web", "spec.example.internal A 203.0.113.10 httproute/default/web"),
                run(gateway("default", "gw", HTTP_ANY, IP, ""), http("[spec.example.internal]", GW, both)).records());
        assertEquals(Set.of("ann.example.internal A 203.0.113.10 httproute/default/web"), run(gateway("default", "gw", HTTP_ANY, IP, ""),
                http("[spec.example.internal]", GW, both + ", external-dns.alpha.kubernetes.io/gateway-hostname-source: annotation-only")).records());
        assertEquals(Set.of("spec.example.internal A 203.0.113.10 httproute/default/web"), run(gateway("default", "gw", HTTP_ANY, IP, ""),
                http("[spec.example.internal]", GW, both + ", external-dns.alpha.kubernetes.io/gateway-hostname-source: defined-hosts-only")).records());
    }

    @Test
    void gatewayNameNamespaceAndLabelFilters() {
        String gw = gateway("default", "gw", HTTP_ANY, IP, ", labels: {tier: edge}");
        String rt = http("[a.example.internal]", GW, "");
        assertEquals(1, run(GatewayFilter.of(Optional.of("gw"), Optional.of("default"), "tier=edge"), gw, rt).records().size());
        assertEquals(0, run(GatewayFilter.of(Optional.of("other"), Optional.empty(), ""), gw, rt).records().size());
        assertEquals(0, run(GatewayFilter.of(Optional.empty(), Optional.of("infra"), ""), gw, rt).records().size());
        assertEquals(0, run(GatewayFilter.of(Optional.empty(), Optional.empty(), "tier!=edge"), gw, rt).records().size());
    }

    @Test
    void aGatewayWithoutAddressIsAProblemThatKeepsTheRecords() {
        var r = run(gateway("default", "gw", HTTP_ANY, "[]", ""), http("[a.example.internal]", GW, ""));
        assertEquals(Set.of(), r.records());
        assertEquals(Problem.GATEWAY_WITHOUT_ADDRESS, r.problems().get(0).reason());
        assertTrue(r.problems().get(0).keepsRecords());
    }

    @Test
    void matchingHostTable() {
        assertEquals("a.b.c", GatewayRouteSource.matchingHost("", "a.b.c"));
        assertEquals("a.b.c", GatewayRouteSource.matchingHost("*.b.c", "a.b.c"));
        assertEquals("x.a.b.c", GatewayRouteSource.matchingHost("x.a.b.c", "*.b.c"));
        assertEquals(null, GatewayRouteSource.matchingHost("*.b.c", "b.c"));
        assertEquals("*.a.b.c", GatewayRouteSource.matchingHost("*.b.c", "*.a.b.c"));
        assertEquals(null, GatewayRouteSource.matchingHost("1.2.3.4", ""));
        assertEquals(null, GatewayRouteSource.matchingHost("a.b.c", "d.b.c"));
    }
}
