package io.meshdns.exposure.source.gateway;

import static io.meshdns.exposure.source.gateway.GatewayRouteSourceTest.accepted;
import static io.meshdns.exposure.source.gateway.GatewayRouteSourceTest.route;
import static io.meshdns.exposure.source.gateway.GatewayRouteSourceTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.meshdns.exposure.source.LabelSelector;
import io.meshdns.exposure.source.Problem;
import io.meshdns.exposure.source.SourceFilter;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Routes whose parentRef is a ListenerSet (ExternalDNS's --gateway-listener-sets, source/gateway_listenerset_test.go's
 * cases, one row each): the ListenerSet's listeners, its parent Gateway's addresses.
 */
class ListenerSetParentTest {

    static final GatewayFilter ON = GatewayFilter.ALL.withListenerSets(true);
    static final String ALLOW_ALL = "{namespaces: {from: All}}";

    /** A Gateway with one HTTP listener of its own that lets ListenerSets attach as {@code allowedListeners} says. */
    static String gateway(String ns, String name, String allowedListeners, String addresses, String extraMeta) {
        return GatewayRouteSourceTest.gateway(ns, name, "[{name: base, protocol: HTTP, port: 80}]", "\n  allowedListeners: " + allowedListeners,
                addresses, extraMeta);
    }

    static String ips(String... ips) {
        var sb = new StringBuilder("[");
        for (String ip : ips) sb.append(sb.length() > 1 ? ", " : "").append("{type: IPAddress, value: \"").append(ip).append("\"}");
        return sb.append("]").toString();
    }

    /** A ListenerSet with one HTTP listener per (name, hostname) pair, every listener Accepted unless {@code status} says otherwise. */
    static String listenerSet(String apiVersion, String kind, String ns, String name, String parentRef, String listeners, String status,
                              String extraMeta) {
        return """
                apiVersion: %s
                kind: %s
                metadata: {name: %s, namespace: %s%s}
                spec:
                  parentRef: %s
                  listeners: %s
                status: %s
                ---
                """.formatted(apiVersion, kind, name, ns, extraMeta, parentRef, listeners, status);
    }

    static String ls(String ns, String name, String parentRef, String listeners, String status, String extraMeta) {
        return listenerSet("gateway.networking.k8s.io/v1", "ListenerSet", ns, name, parentRef, listeners, status, extraMeta);
    }

    static String listener(String name, String hostname, String allowedRoutes) {
        return "{name: " + name + ", protocol: HTTP, port: 8080" + (hostname.isEmpty() ? "" : ", hostname: \"" + hostname + "\"")
                + (allowedRoutes.isEmpty() ? "" : ", allowedRoutes: " + allowedRoutes) + "}";
    }

    static String acceptedStatus(String... listeners) {
        var sb = new StringBuilder("{conditions: [{type: Accepted, status: \"True\"}], listeners: [");
        for (int i = 0; i < listeners.length; i++) {
            sb.append(i > 0 ? ", " : "").append("{name: ").append(listeners[i]).append(", conditions: [{type: Accepted, status: \"True\"}]}");
        }
        return sb.append("]}").toString();
    }

    static String lsRef(String ns, String name, String extra) {
        return "{group: gateway.networking.k8s.io, kind: ListenerSet, namespace: " + ns + ", name: " + name + extra + "}";
    }

    static String httpRoute(String ns, String hostnames, String... refs) {
        String list = "[" + String.join(", ", refs) + "]";
        StringBuilder parents = new StringBuilder();
        for (String r : refs) parents.append(parents.length() == 0 ? "" : ", ").append(accepted(r, 1), 1, accepted(r, 1).length() - 1);
        return route("HTTPRoute", ns, "rt", hostnames, list, "[" + parents + "]", 1, "");
    }

    static final String ALL_ROUTES = "{namespaces: {from: All}}";
    static final String APP = "[" + listener("app", "*.example.com", ALL_ROUTES) + "]";

    @Test
    void aRouteUnderAListenerSetPublishesAtItsGatewaysAddresses() {
        var r = run(ON, gateway("default", "my-gateway", ALLOW_ALL, ips("10.64.0.1", "10.64.0.2"), ""),
                ls("default", "my-listenerset", "{name: my-gateway}", APP, acceptedStatus("app"), ""),
                httpRoute("default", "[app.example.com]", lsRef("default", "my-listenerset", "")));
        assertEquals(Set.of("app.example.com A 10.64.0.1,10.64.0.2 httproute/default/rt"), r.records());
        assertTrue(r.problems().isEmpty(), r.problems().toString());
    }

    @Test
    void theListenerHostnameWildcardNarrowsTheRouteHost() {
        var r = run(ON, gateway("default", "gw", ALLOW_ALL, ips("10.64.0.1"), ""),
                ls("default", "ls", "{name: gw}", APP, acceptedStatus("app"), ""),
                httpRoute("default", "[sub.domain.example.com, other.test]", lsRef("default", "ls", "")));
        assertEquals(Set.of("sub.domain.example.com A 10.64.0.1 httproute/default/rt"), r.records());
        assertEquals(Problem.HOSTNAME_OUTSIDE_LISTENER, r.problems().get(0).reason());
    }

    @Test
    void theExperimentalXListenerSetIsFollowedTheSameWay() {
        var r = run(ON, gateway("default", "gw", ALLOW_ALL, ips("10.64.0.1"), ""),
                listenerSet("gateway.networking.x-k8s.io/v1alpha1", "XListenerSet", "default", "xls", "{name: gw}", APP, acceptedStatus("app"), ""),
                httpRoute("default", "[app.example.com]", "{group: gateway.networking.x-k8s.io, kind: XListenerSet, name: xls}"));
        assertEquals(Set.of("app.example.com A 10.64.0.1 httproute/default/rt"), r.records());
    }

    @Test
    void withoutTheSwitchAListenerSetParentPublishesNothingAndTheWarningSaysWhy() {
        var r = run(GatewayFilter.ALL, gateway("default", "gw", ALLOW_ALL, ips("10.64.0.1"), ""),
                ls("default", "ls", "{name: gw}", APP, acceptedStatus("app"), ""),
                httpRoute("default", "[app.example.com]", lsRef("default", "ls", "")));
        assertEquals(Set.of(), r.records());
        assertEquals(Problem.ROUTE_NOT_ACCEPTED, r.problems().get(0).reason());
        assertTrue(r.problems().get(0).message().contains("meshdns.exposure.gateway.listener-sets=true"), r.problems().get(0).message());
    }

    @Test
    void theGatewayFiltersApplyToTheParentGatewayNotToTheListenerSet() {
        String gws = gateway("infra", "match", ALLOW_ALL, ips("10.0.0.1"), ", labels: {foo: bar}")
                + gateway("infra", "dont-match", ALLOW_ALL, ips("10.0.0.2"), ", labels: {foo: qux}");
        String sets = ls("edge", "ls-match", "{name: match, namespace: infra}", APP, acceptedStatus("app"), "")
                + ls("edge", "ls-dont-match", "{name: dont-match, namespace: infra}", APP, acceptedStatus("app"), "");
        String rt = httpRoute("apps", "[app.example.com]", lsRef("edge", "ls-match", ""), lsRef("edge", "ls-dont-match", ""));
        assertEquals(Set.of("app.example.com A 10.0.0.1 httproute/apps/rt"),
                run(GatewayFilter.of(Optional.empty(), Optional.empty(), "foo=bar").withListenerSets(true), gws, sets, rt).records());
        // the Gateway namespace filter does not hide ListenerSets in other namespaces
        assertEquals(Set.of("app.example.com A 10.0.0.1,10.0.0.2 httproute/apps/rt"),
                run(GatewayFilter.of(Optional.empty(), Optional.of("infra"), "").withListenerSets(true), gws, sets, rt).records());
        assertEquals(Set.of(), run(GatewayFilter.of(Optional.empty(), Optional.of("edge"), "").withListenerSets(true), gws, sets, rt).records());
        assertEquals(Set.of("app.example.com A 10.0.0.2 httproute/apps/rt"),
                run(GatewayFilter.of(Optional.of("dont-match"), Optional.empty(), "").withListenerSets(true), gws, sets, rt).records());
    }

    @Test
    void aRouteTheListenerSetHasNotAcceptedPublishesNothing() {
        String refused = route("HTTPRoute", "default", "rt", "[app.example.com]", "[" + lsRef("default", "ls", "") + "]",
                "[{parentRef: " + lsRef("default", "ls", "") + ", controllerName: x, conditions: [{type: Accepted, status: \"False\","
                        + " observedGeneration: 1}]}]", 1, "");
        var r = run(ON, gateway("default", "gw", ALLOW_ALL, ips("10.0.0.1"), ""), ls("default", "ls", "{name: gw}", APP, acceptedStatus("app"), ""),
                refused);
        assertEquals(Set.of(), r.records());
        assertEquals(Problem.ROUTE_NOT_ACCEPTED, r.problems().get(0).reason());
    }

    @Test
    void theGatewayMustAllowListenerSetsFromTheirNamespace() {
        String set = ls("edge", "ls", "{name: gw, namespace: infra}", APP, acceptedStatus("app"), "");
        String rt = httpRoute("apps", "[app.example.com]", lsRef("edge", "ls", ""));
        String ns = """
                apiVersion: v1
                kind: Namespace
                metadata: {name: edge, labels: {listener-set: enabled}}
                ---
                """;
        // allowedListeners absent: None
        var none = run(ON, gateway("infra", "gw", "null", ips("10.0.0.1"), ""), set, rt);
        assertEquals(Set.of(), none.records());
        assertTrue(none.problems().get(0).message().contains("does not allow ListenerSets from namespace edge"), none.problems().toString());
        assertEquals(Set.of(), run(ON, gateway("infra", "gw", "{namespaces: {from: Same}}", ips("10.0.0.1"), ""), set, rt).records());
        String selector = "{namespaces: {from: Selector, selector: {matchLabels: {listener-set: enabled}}}}";
        assertEquals(Set.of("app.example.com A 10.0.0.1 httproute/apps/rt"),
                run(ON, ns, gateway("infra", "gw", selector, ips("10.0.0.1"), ""), set, rt).records());
        assertEquals(Set.of(), run(ON, ns.replace("enabled", "disabled"), gateway("infra", "gw", selector, ips("10.0.0.1"), ""), set, rt).records());
    }

    @Test
    void theListenerSetAndEachOfItsListenersMustBeAccepted() {
        String gw = gateway("default", "gw", ALLOW_ALL, ips("10.0.0.1"), "");
        String rt = httpRoute("default", "[app.example.com]", lsRef("default", "ls", ", sectionName: app"));
        var notAccepted = run(ON, gw, ls("default", "ls", "{name: gw}", APP, "{conditions: [{type: Accepted, status: \"False\"}]}", ""), rt);
        assertEquals(Set.of(), notAccepted.records());
        assertTrue(notAccepted.problems().get(0).message().contains("ListenerSet default/ls has not been accepted"), notAccepted.problems().toString());
        assertEquals(Set.of(), run(ON, gw, ls("default", "ls", "{name: gw}", APP, "{conditions: [{type: Accepted, status: \"True\"}]}", ""), rt)
                .records(), "a listener without status is not attached");
        assertEquals(Set.of(), run(ON, gw, ls("default", "ls", "{name: gw}", APP, "{conditions: [{type: Accepted, status: \"True\"}],"
                + " listeners: [{name: app, conditions: [{type: Accepted, status: \"False\"}]}]}", ""), rt).records());
    }

    @Test
    void targetsComeFromTheListenerSetAnnotationThenTheGatewaysThenItsAddresses() {
        String rt = httpRoute("default", "[app.example.com]", lsRef("default", "ls", ""));
        String gwAnnotated = gateway("default", "gw", ALLOW_ALL, ips("10.0.0.1"), ", annotations: {external-dns.kubernetes.io/target: gw.example.com}");
        assertEquals(Set.of("app.example.com CNAME gw.example.com httproute/default/rt"),
                run(ON, gwAnnotated, ls("default", "ls", "{name: gw}", APP, acceptedStatus("app"), ""), rt).records());
        String lsAnnotated = ls("default", "ls", "{name: gw}", APP, acceptedStatus("app"), ", annotations: {external-dns.kubernetes.io/target: ls.example.com}");
        assertEquals(Set.of("app.example.com CNAME ls.example.com httproute/default/rt"), run(ON, gwAnnotated, lsAnnotated, rt).records());
        assertEquals(Set.of("app.example.com CNAME ls.example.com httproute/default/rt"),
                run(ON, gateway("default", "gw", ALLOW_ALL, ips("10.0.0.1"), ""), lsAnnotated, rt).records());
    }

    @Test
    void allowedRoutesSameMeansTheListenerSetsNamespace() {
        String set = ls("infra", "ls", "{name: gw, namespace: gws}", "[" + listener("app", "app.example.com", "") + "]", acceptedStatus("app"), "");
        String gw = gateway("gws", "gw", ALLOW_ALL, ips("10.0.0.1"), "");
        assertEquals(Set.of(), run(ON, gw, set, httpRoute("other", "[app.example.com]", lsRef("infra", "ls", ""))).records());
        assertEquals(Set.of("app.example.com A 10.0.0.1 httproute/infra/rt"),
                run(ON, gw, set, httpRoute("infra", "[app.example.com]", lsRef("infra", "ls", ""))).records());
        // from: All lets a route of any namespace in
        assertEquals(Set.of("app.example.com A 10.0.0.1 httproute/apps/rt"),
                run(ON, gw, ls("infra", "ls", "{name: gw, namespace: gws}", APP, acceptedStatus("app"), ""),
                        httpRoute("apps", "[app.example.com]", lsRef("infra", "ls", ""))).records());
    }

    @Test
    void aSectionNamePicksOneListenerOfTheSet() {
        String set = ls("default", "ls", "{name: gw}", "[" + listener("app", "app.example.com", ALL_ROUTES) + ", "
                + listener("api", "api.example.com", ALL_ROUTES) + "]", acceptedStatus("app", "api"), "");
        String gw = gateway("default", "gw", ALLOW_ALL, ips("10.0.0.1"), "");
        assertEquals(Set.of("api.example.com A 10.0.0.1 httproute/default/rt"),
                run(ON, gw, set, route("HTTPRoute", "default", "rt", "[]", "[" + lsRef("default", "ls", ", sectionName: api") + "]",
                        accepted(lsRef("default", "ls", ", sectionName: api"), 1), 1, "")).records());
        assertEquals(Set.of("api.example.com A 10.0.0.1 httproute/default/rt", "app.example.com A 10.0.0.1 httproute/default/rt"),
                run(ON, gw, set, route("HTTPRoute", "default", "rt", "[]", "[" + lsRef("default", "ls", "") + "]",
                        accepted(lsRef("default", "ls", ""), 1), 1, "")).records());
    }

    @Test
    void aListenerSetWithoutItsGatewayIsAWarningOnItOnceAndThePassGoesOn() {
        String orphan = ls("default", "ls", "{name: nonexistent}", APP, acceptedStatus("app"), "");
        String gw = gateway("default", "gw", ALLOW_ALL, ips("10.0.0.1"), "");
        String good = GatewayRouteSourceTest.route("HTTPRoute", "default", "fine", "[fine.example.com]", "[{name: gw}]",
                accepted("{name: gw}", 1), 1, "");
        var r = run(ON, gw, orphan, httpRoute("default", "[app.example.com]", lsRef("default", "ls", "")),
                httpRoute("default", "[two.example.com]", lsRef("default", "ls", "")).replace("name: rt,", "name: rt2,"), good);
        assertEquals(Set.of(), r.records().stream().filter(l -> !l.startsWith("fine.")).collect(java.util.stream.Collectors.toSet()));
        assertEquals(Set.of("fine.example.com A 10.0.0.1 httproute/default/fine"), r.records());
        var onSet = r.problems().stream().filter(p -> p.kind().equals("ListenerSet")).toList();
        assertEquals(1, onSet.size(), r.problems().toString());
        assertEquals(Problem.LISTENER_SET_WITHOUT_GATEWAY, onSet.get(0).reason());
        assertEquals("default/ls", onSet.get(0).namespace() + "/" + onSet.get(0).name());
        assertTrue(onSet.get(0).message().contains("default/nonexistent"), onSet.get(0).message());
    }
    /** ExternalDNS reads ListenerSets through the annotation filter: one that does not match is not followed; Gateways are not filtered by it. */
    @Test
    void theAnnotationFilterAppliesToListenerSets() {
        var filter = new SourceFilter(Optional.empty(), LabelSelector.parse("", ""), LabelSelector.parse("meshdns.exposure.annotation-filter", "team=a"));
        String gw = gateway("default", "gw", ALLOW_ALL, ips("10.64.0.1"), "");
        String route = httpRoute("default", "[app.example.com]", lsRef("default", "set", ""))
                .replace("annotations: {}", "annotations: {team: a}");
        String matching = ls("default", "set", "{name: gw}", APP, acceptedStatus("app"), ", annotations: {team: a}");
        String other = ls("default", "set", "{name: gw}", APP, acceptedStatus("app"), ", annotations: {team: b}");
        assertEquals(Set.of("app.example.com A 10.64.0.1 httproute/default/rt"), run(ON, filter, gw, matching, route).records());
        assertEquals(Set.of(), run(ON, filter, gw, other, route).records());
        assertEquals(Set.of(), run(ON, filter, gw, ls("default", "set", "{name: gw}", APP, acceptedStatus("app"), ""), route).records());
        assertEquals(Set.of("app.example.com A 10.64.0.1 httproute/default/rt"), run(ON, gw, other, route).records(), "no filter: followed");
    }
}
