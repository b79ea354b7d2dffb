package io.meshdns.exposure.source.istio;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.meshdns.exposure.source.ObjectTranslation;
import io.meshdns.exposure.source.Source;
import io.meshdns.exposure.source.SourceOutput;
import io.meshdns.exposure.source.SourceSettings;
import io.meshdns.exposure.source.WatchedKind;
import io.meshdns.exposure.source.gateway.GatewayFilter;
import io.meshdns.exposure.source.gateway.GatewayRouteSource;
import io.meshdns.exposure.source.gateway.RouteKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The istio-gateway and istio-virtualservice sources against ExternalDNS v0.22's own test cases
 * (source/istio_gateway_test.go, istio_virtualservice_test.go; row names are theirs). Two deliberate differences,
 * meshdns-wide: a name with address targets gets no CNAME beside its A/AAAA (ExternalDNS emits both, which a zone
 * cannot hold), and a CNAME has one target, the smallest name; and where ExternalDNS fails the whole pass (an ingress
 * annotation naming no Ingress) meshdns reports a Problem on that object and keeps its records.
 */
class IstioSourcesTest {

    static final KubernetesSerialization YAML = new KubernetesSerialization();

    // ---- object builders (YAML, as a manifest would hold them) ----

    /** An ingress gateway Service in {@code ns}: selector, externalIPs, load balancer IPs and host names. */
    static String lbService(String ns, String name, String selector, String externalIps, String lbIngress) {
        return """
                apiVersion: v1
                kind: Service
                metadata: {name: %s, namespace: %s}
                spec: {type: LoadBalancer, selector: {%s}, externalIPs: [%s]}
                status: {loadBalancer: {ingress: [%s]}}
                ---
                """.formatted(name, ns, selector, externalIps, lbIngress);
    }

    /** The default ingress gateway: istio-system/istio-ingressgateway, selector istio=ingressgateway. */
    static String lb(String externalIps, String lbIngress) {
        return lbService("istio-system", "istio-ingressgateway", "istio: ingressgateway", externalIps, lbIngress);
    }

    static String ingress(String ns, String name, String lbIngress) {
        return """
                apiVersion: networking.k8s.io/v1
                kind: Ingress
                metadata: {name: %s, namespace: %s}
                spec: {}
                status: {loadBalancer: {ingress: [%s]}}
                ---
                """.formatted(name, ns, lbIngress);
    }

    /** An Istio Gateway: {@code servers} is a YAML list of host lists, e.g. {@code [[foo.bar], ["*"]]}. */
    static String gateway(String ns, String name, String selector, String servers, String annotations) {
        var sb = new StringBuilder();
        for (String hosts : servers.substring(1, servers.length() - 1).split("(?<=\\]),\\s*")) {
            if (hosts.isBlank()) continue;
            if (sb.length() > 0) sb.append(", ");
            sb.append("{port: {number: 80, name: http, protocol: HTTP}, hosts: ").append(hosts).append('}');
        }
        return """
                apiVersion: networking.istio.io/v1
                kind: Gateway
                metadata: {name: %s, namespace: %s, annotations: {%s}}
                spec: {selector: {%s}, servers: [%s]}
                ---
                """.formatted(name, ns, annotations, selector, sb);
    }

    static String gw(String servers, String annotations) {
        return gateway("default", "fake1", "istio: ingressgateway", servers, annotations);
    }

    static String virtualService(String ns, String name, String gateways, String hosts, String exportTo, String annotations) {
        return """
                apiVersion: networking.istio.io/v1
                kind: VirtualService
                metadata: {name: %s, namespace: %s, annotations: {%s}}
                spec: {gateways: [%s], hosts: [%s]%s}
                ---
                """.formatted(name, ns, annotations, gateways, hosts, exportTo.isEmpty() ? "" : ", exportTo: [" + exportTo + "]");
    }

    static List<HasMetadata> parse(String docs) {
        var out = new ArrayList<HasMetadata>();
        for (String doc : docs.split("(?m)^---\\s*$")) if (!doc.isBlank()) out.add((HasMetadata) YAML.unmarshal(doc));
        return out;
    }

    static TreeSet<String> run(String source, String docs) {
        List<Source> sources = List.of(new IstioGatewaySource(), new IstioVirtualServiceSource(), new IstioServiceEntrySource());
        SourceOutput out = new ObjectTranslation(sources, new SourceSettings(Optional.empty(), false, Optional.empty()), Set.of(source))
                .translate(parse(docs));
        var lines = new TreeSet<String>();
        out.endpoints().forEach(e -> lines.add(e.dnsName() + " " + (e.ttl() == 0 ? "" : e.ttl() + " ") + e.recordType() + " "
                + String.join(",", e.targets()) + " " + e.resource()));
        out.problems().forEach(p -> lines.add("PROBLEM " + p.resourceKey() + " " + p.reason()));
        return lines;
    }

    static Set<String> set(String... lines) {
        return new TreeSet<>(List.of(lines));
    }

    // ---- istio-gateway ----

    static Stream<Arguments> gatewayCases() {
        String gwKey = " gateway/default/fake1";
        return Stream.of(
                Arguments.of("one rule.host one lb.hostname", lb("", "{hostname: lb.com}") + gw("[[foo.bar]]", ""),
                        set("foo.bar CNAME lb.com" + gwKey)),
                Arguments.of("one namespaced rule.host one lb.hostname", lb("", "{hostname: lb.com}") + gw("[[my-namespace/foo.bar]]", ""),
                        set("foo.bar CNAME lb.com" + gwKey)),
                Arguments.of("one rule.host one lb.IP", lb("", "{ip: 8.8.8.8}") + gw("[[foo.bar]]", ""),
                        set("foo.bar A 8.8.8.8" + gwKey)),
                Arguments.of("one rule.host one ingress.IP", ingress("default", "ingress1", "{ip: 8.8.8.8}")
                        + gw("[[foo.bar]]", "external-dns.alpha.kubernetes.io/ingress: ingress1"), set("foo.bar A 8.8.8.8" + gwKey)),
                Arguments.of("one rule.host two lb.IP and two lb.Hostname (no CNAME beside the A)",
                        lb("", "{ip: 8.8.8.8}, {ip: 127.0.0.1}, {hostname: elb.com}, {hostname: alb.com}") + gw("[[foo.bar]]", ""),
                        set("foo.bar A 127.0.0.1,8.8.8.8" + gwKey)),
                Arguments.of("one rule.host two ingress.IP and two ingress.Hostname",
                        ingress("default", "ingress1", "{ip: 8.8.8.8}, {ip: 127.0.0.1}, {hostname: elb.com}, {hostname: alb.com}")
                                + gw("[[foo.bar]]", "external-dns.kubernetes.io/ingress: ingress1"),
                        set("foo.bar A 127.0.0.1,8.8.8.8" + gwKey)),
                Arguments.of("no rule.host", lb("1.1.1.1", "{ip: 8.8.8.8}") + gw("[]", ""), set()),
                Arguments.of("one empty rule.host", lb("1.1.1.1", "{ip: 8.8.8.8}") + gw("[[\"\"]]", ""), set()),
                Arguments.of("one empty rule.host with gateway ingress annotation", ingress("default", "ingress1", "{ip: 8.8.8.8}")
                        + gw("[[\"\"]]", "external-dns.kubernetes.io/ingress: ingress1"), set()),
                Arguments.of("no targets", lb("", "") + gw("[[foo.bar]]", ""), set()),
                Arguments.of("one gateway, two ingressgateway loadbalancer hostnames (one CNAME target: the smallest)",
                        lbService("istio-other", "gateway1", "istio: ingressgateway", "", "{hostname: lb2.com}")
                                + lbService("istio-other", "gateway2", "istio: ingressgateway", "", "{hostname: lb.com}") + gw("[[foo.bar]]", ""),
                        set("foo.bar CNAME lb.com" + gwKey)),
                Arguments.of("one gateway, ingress in separate namespace", ingress("istio-other2", "ingress1", "{hostname: lb.com}")
                                + ingress("istio-other", "ingress2", "{hostname: lb2.com}")
                                + gw("[[foo.bar]]", "external-dns.kubernetes.io/ingress: istio-other2/ingress1"),
                        set("foo.bar CNAME lb.com" + gwKey)),
                Arguments.of("one rule.host one lb.externalIP", lb("8.8.8.8", "") + gw("[[foo.bar]]", ""), set("foo.bar A 8.8.8.8" + gwKey)),
                Arguments.of("one rule.host two lb.IP, two lb.Hostname and two lb.externalIP",
                        lb("1.1.1.1, 2.2.2.2", "{ip: 8.8.8.8}, {ip: 127.0.0.1}, {hostname: elb.com}") + gw("[[foo.bar]]", ""),
                        set("foo.bar A 1.1.1.1,2.2.2.2" + gwKey)),
                Arguments.of("two simple gateways, one ingressgateway loadbalancer service", lb("", "{ip: 8.8.8.8}")
                                + gw("[[example.org]]", "") + gateway("default", "fake2", "istio: ingressgateway", "[[new.org]]", ""),
                        set("example.org A 8.8.8.8" + gwKey, "new.org A 8.8.8.8 gateway/default/fake2")),
                Arguments.of("two simple gateways on different namespaces", lb("", "{ip: 8.8.8.8}")
                                + gateway("testing1", "fake1", "istio: ingressgateway", "[[example.org]]", "")
                                + gateway("testing2", "fake2", "istio: ingressgateway", "[[new.org]]", ""),
                        set("example.org A 8.8.8.8 gateway/testing1/fake1", "new.org A 8.8.8.8 gateway/testing2/fake2")),
                Arguments.of("our controller type is dns-controller", lb("", "{ip: 8.8.8.8}")
                        + gw("[[example.org]]", "external-dns.kubernetes.io/controller: dns-controller"), set("example.org A 8.8.8.8" + gwKey)),
                Arguments.of("different controller types are ignored", lb("", "{ip: 8.8.8.8}")
                        + gw("[[example.org]]", "external-dns.kubernetes.io/controller: some-other-tool"), set()),
                Arguments.of("gateway rules with hostname annotation", lb("", "{ip: 8.8.8.8}")
                                + gw("[[example.org]]", "external-dns.alpha.kubernetes.io/hostname: dns-through-hostname.com"),
                        set("example.org A 8.8.8.8" + gwKey, "dns-through-hostname.com A 8.8.8.8" + gwKey)),
                Arguments.of("gateway rules with hostname annotation having multiple hostnames", lb("", "{ip: 8.8.8.8}")
                                + gw("[[example.org]]", "external-dns.kubernetes.io/hostname: \"a.example.com, b.example.com\""),
                        set("example.org A 8.8.8.8" + gwKey, "a.example.com A 8.8.8.8" + gwKey, "b.example.com A 8.8.8.8" + gwKey)),
                Arguments.of("gateway rules with hostname and target annotation", lb("", "{ip: 8.8.8.8}")
                                + gw("[[example.org]]", "external-dns.kubernetes.io/hostname: dns-through-hostname.com, "
                                + "external-dns.kubernetes.io/target: gateway-target.com"),
                        set("example.org CNAME gateway-target.com" + gwKey, "dns-through-hostname.com CNAME gateway-target.com" + gwKey)),
                Arguments.of("gateway rules with hostname, target and ingress annotation", lb("", "{ip: 8.8.8.8}")
                                + ingress("default", "ingress1", "{ip: 1.1.1.1}")
                                + gw("[[example.org]]", "external-dns.kubernetes.io/target: gateway-target.com, "
                                + "external-dns.kubernetes.io/ingress: ingress1"),
                        set("example.org CNAME gateway-target.com" + gwKey)),
                Arguments.of("gateway rules with annotation and custom TTL", lb("", "{ip: 8.8.8.8}")
                                + gw("[[example.org]]", "external-dns.alpha.kubernetes.io/ttl: \"6\"")
                                + gateway("default", "fake2", "istio: ingressgateway", "[[new.org]]", "external-dns.kubernetes.io/ttl: 1m"),
                        set("example.org 6 A 8.8.8.8" + gwKey, "new.org 60 A 8.8.8.8 gateway/default/fake2")),
                Arguments.of("Gateway with empty ingress annotation (the Services are asked)", lb("", "{ip: 8.8.8.8}")
                        + gw("[[example.org]]", "external-dns.kubernetes.io/ingress: \"\""), set("example.org A 8.8.8.8" + gwKey)),
                Arguments.of("gateways with wildcard host", lb("", "{ip: 1.2.3.4}") + gw("[[\"*\"]]", "")
                        + gateway("default", "fake2", "istio: ingressgateway", "[[\"some-namespace/*\"]]", ""), set()),
                Arguments.of("gateways with wildcard host and hostname annotation", lb("", "{ip: 1.2.3.4}")
                                + gw("[[\"*\"]]", "external-dns.kubernetes.io/hostname: fake1.dns-through-hostname.com")
                                + gateway("default", "fake2", "istio: ingressgateway", "[[\"some-namespace/*\"]]",
                                "external-dns.kubernetes.io/hostname: fake2.dns-through-hostname.com"),
                        set("fake1.dns-through-hostname.com A 1.2.3.4" + gwKey, "fake2.dns-through-hostname.com A 1.2.3.4 gateway/default/fake2")),
                Arguments.of("a wildcard server host is published as a wildcard record", lb("", "{ip: 1.2.3.4}") + gw("[[\"*.apps.example.org\"]]", ""),
                        set("*.apps.example.org A 1.2.3.4" + gwKey)),
                Arguments.of("gateways with ingress annotation; ingress not found (a Problem, records kept; ExternalDNS fails the pass)",
                        ingress("default", "ingress1", "{ip: 8.8.8.8}") + gw("[[new.org]]", "external-dns.kubernetes.io/ingress: ingress2")
                                + gateway("default", "fake2", "istio: ingressgateway", "[[fine.org]]", ""),
                        set("PROBLEM gateway/default/fake1 InvalidAnnotation")),
                Arguments.of("gw single selector match with single service selector",
                        lbService("default", "fake-service", "app: demo, env: prod, version: v1", "10.10.10.255", "")
                                + gateway("default", "fake1", "version: v1", "[[example.org]]", ""),
                        set("example.org A 10.10.10.255" + gwKey)),
                Arguments.of("gw selector has subset of service selectors",
                        lbService("default", "fake-service", "app: demo, env: prod, version: v1", "10.10.10.255", "")
                                + gateway("default", "fake1", "version: v1, app: demo", "[[example.org]]", ""),
                        set("example.org A 10.10.10.255" + gwKey)),
                Arguments.of("gw selector a service does not hold", lbService("default", "fake-service", "app: demo", "10.10.10.255", "")
                        + gateway("default", "fake1", "app: demo, version: v2", "[[example.org]]", ""), set()),
                Arguments.of("a bad target annotation value is a Problem; the good one is published", lb("", "{ip: 8.8.8.8}")
                                + gw("[[example.org]]", "external-dns.kubernetes.io/target: \"192.0.2.7, bad..example\""),
                        set("example.org A 192.0.2.7" + gwKey, "PROBLEM gateway/default/fake1 InvalidAnnotation")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("gatewayCases")
    void istioGateway(String title, String docs, Set<String> expected) {
        assertEquals(expected, run("istio-gateway", docs), title);
    }

    // ---- istio-virtualservice: binding (testVirtualServiceBindsToGateway) ----

    static Stream<Arguments> bindingCases() {
        return Stream.of(
                Arguments.of("matching host *", "default", "[[\"*\"]]", "default", "", "foo.bar", true),
                Arguments.of("matching host *.<domain>", "default", "[[\"*.foo.bar\"]]", "default", "", "baz.foo.bar", true),
                Arguments.of("not matching host *.<domain> (the domain itself)", "default", "[[\"*.foo.bar\"]]", "default", "", "foo.bar", false),
                Arguments.of("not matching host *.<domain> (a longer label)", "default", "[[\"*.foo.bar\"]]", "default", "", "bazfoo.bar", false),
                Arguments.of("not matching host *.<domain> (*foo.bar)", "default", "[[\"*.foo.bar\"]]", "default", "", "*foo.bar", false),
                Arguments.of("matching host */*", "default", "[[\"*/*\"]]", "default", "", "foo.bar", true),
                Arguments.of("matching host <namespace>/*", "istio-system", "[[\"myns/*\"]]", "myns", "", "foo.bar", true),
                Arguments.of("matching host ./*", "istio-system", "[[\"./*\"]]", "istio-system", "", "foo.bar", true),
                Arguments.of("not matching host ./*", "istio-system", "[[\"./*\"]]", "myns", "", "foo.bar", false),
                Arguments.of("not matching host <namespace>/*", "istio-system", "[[\"myns/*\"]]", "otherns", "", "foo.bar", false),
                Arguments.of("matching exportTo *", "istio-system", "[[\"*\"]]", "otherns", "\"*\"", "foo.bar", true),
                Arguments.of("matching exportTo <namespace>", "istio-system", "[[\"*\"]]", "otherns", "istio-system", "foo.bar", true),
                Arguments.of("not matching exportTo <namespace>", "istio-system", "[[\"*\"]]", "otherns", "myns", "foo.bar", false),
                Arguments.of("not matching exportTo .", "istio-system", "[[\"*\"]]", "otherns", "\".\"", "foo.bar", false),
                Arguments.of("matching exportTo . in the Gateway's namespace", "istio-system", "[[\"*\"]]", "istio-system", "\".\"", "foo.bar", true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("bindingCases")
    void virtualServiceBindsToGateway(String title, String gwNs, String servers, String vsNs, String exportTo, String host, boolean binds) {
        var gwObj = (GenericKubernetesResource) parse(gateway(gwNs, "mygw", "", servers, "")).get(0);
        var vs = (GenericKubernetesResource) parse(virtualService(vsNs, "vs", "mygw", "\"" + host + "\"", exportTo, "")).get(0);
        List<String> export = exportTo.isEmpty() ? List.of() : List.of(exportTo.replace("\"", ""));
        assertEquals(binds, IstioGateways.binds(vs, export, gwObj, host), title);
    }

    // ---- istio-virtualservice: endpoints ----

    static Stream<Arguments> virtualServiceCases() {
        String vsKey = " virtualservice/default/vs1";
        String anyHost = gw("[[\"*\"]]", "");
        return Stream.of(
                Arguments.of("one rule.host one lb.hostname", lb("", "{hostname: lb.com}") + anyHost
                        + virtualService("default", "vs1", "fake1", "foo.bar", "", ""), set("foo.bar CNAME lb.com" + vsKey)),
                Arguments.of("one rule.host one lb.IP", lb("", "{ip: 8.8.8.8}") + anyHost
                        + virtualService("default", "vs1", "fake1", "foo.bar", "", ""), set("foo.bar A 8.8.8.8" + vsKey)),
                Arguments.of("one rule.host one lb.externalIPs", lb("8.8.8.8", "") + anyHost
                        + virtualService("default", "vs1", "fake1", "foo.bar", "", ""), set("foo.bar A 8.8.8.8" + vsKey)),
                Arguments.of("one rule.host two lb.IP and two lb.Hostname and two lb.externalIPs",
                        lb("1.1.1.1, 2.2.2.2", "{ip: 8.8.8.8}, {hostname: elb.com}") + anyHost
                                + virtualService("default", "vs1", "fake1", "foo.bar", "", ""), set("foo.bar A 1.1.1.1,2.2.2.2" + vsKey)),
                Arguments.of("no rule.host", lb("", "{ip: 8.8.8.8}") + anyHost + virtualService("default", "vs1", "fake1", "", "", ""), set()),
                Arguments.of("no rule.gateway", lb("", "{ip: 8.8.8.8}") + anyHost + virtualService("default", "vs1", "", "foo.bar", "", ""), set()),
                Arguments.of("the mesh gateway is every sidecar, not a Gateway", lb("", "{ip: 8.8.8.8}") + anyHost
                        + virtualService("default", "vs1", "mesh", "foo.bar", "", ""), set()),
                Arguments.of("matching selectors for service and gateway",
                        lbService("default", "service1", "app: myservice", "", "{hostname: elb.com}, {hostname: alb.com}")
                                + lbService("default", "service2", "app: otherservice", "", "{ip: 8.8.8.8}")
                                + gateway("default", "fake1", "app: myservice", "[[\"*\"]]", "")
                                + virtualService("default", "vs1", "fake1", "foo.bar", "", ""), set("foo.bar CNAME alb.com" + vsKey)),
                Arguments.of("ingress gateway annotation same namespace", ingress("default", "ingress1", "{hostname: alb.com}")
                                + ingress("default", "ingress2", "{ip: 8.8.8.8}") + gw("[[\"*\"]]", "external-dns.kubernetes.io/ingress: ingress1")
                                + virtualService("default", "vs1", "fake1", "foo.bar", "", ""), set("foo.bar CNAME alb.com" + vsKey)),
                Arguments.of("ingress gateway annotation separate namespace", ingress("ingress", "ingress1", "{hostname: alb.com}")
                                + ingress("ingress", "ingress2", "{ip: 127.0.0.1}, {ip: 8.8.8.8}")
                                + gw("[[\"*\"]]", "external-dns.kubernetes.io/ingress: ingress/ingress2")
                                + virtualService("default", "vs1", "fake1", "foo.bar", "", ""), set("foo.bar A 127.0.0.1,8.8.8.8" + vsKey)),
                Arguments.of("two simple virtualservices on different namespaces with the same target gateway", lb("", "{ip: 8.8.8.8}")
                                + gateway("istio-system", "fake1", "istio: ingressgateway", "[[\"*\"]]", "")
                                + virtualService("testing1", "vs1", "istio-system/fake1", "example.org", "", "")
                                + virtualService("testing2", "vs2", "istio-system/fake1", "new.org", "", ""),
                        set("example.org A 8.8.8.8 virtualservice/testing1/vs1", "new.org A 8.8.8.8 virtualservice/testing2/vs2")),
                Arguments.of("our controller type is dns-controller", lb("", "{ip: 8.8.8.8}") + anyHost
                                + virtualService("default", "vs1", "fake1", "example.org", "", "external-dns.kubernetes.io/controller: dns-controller"),
                        set("example.org A 8.8.8.8" + vsKey)),
                Arguments.of("different controller types are ignored", lb("", "{ip: 8.8.8.8}") + anyHost
                        + virtualService("default", "vs1", "fake1", "example.org", "", "external-dns.kubernetes.io/controller: some-other-tool"), set()),
                Arguments.of("virtualservice with target annotation", lb("", "{ip: 8.8.8.8}")
                                + virtualService("default", "vs1", "", "example.org", "", "external-dns.kubernetes.io/target: vs-target.com")
                                + virtualService("default", "vs2", "", "example2.org", "", "external-dns.alpha.kubernetes.io/target: vs-target.com"),
                        set("example.org CNAME vs-target.com" + vsKey, "example2.org CNAME vs-target.com virtualservice/default/vs2")),
                Arguments.of("virtualservice; gateway with target annotation", lb("", "{ip: 8.8.8.8}")
                                + gw("[[\"*\"]]", "external-dns.kubernetes.io/target: gateway-target.com")
                                + virtualService("default", "vs1", "fake1", "example.org", "", ""),
                        set("example.org CNAME gateway-target.com" + vsKey)),
                Arguments.of("virtualservice; gateway with target and ingress annotation", lb("", "{ip: 8.8.8.8}")
                                + ingress("default", "ingress1", "{ip: 1.1.1.1}")
                                + gw("[[\"*\"]]", "external-dns.kubernetes.io/target: gateway-target.com, external-dns.kubernetes.io/ingress: ingress1")
                                + virtualService("default", "vs1", "fake1", "example.org", "", ""),
                        set("example.org CNAME gateway-target.com" + vsKey)),
                Arguments.of("virtualservice with hostname annotation", lb("", "{ip: 8.8.8.8}") + anyHost
                                + virtualService("default", "vs1", "fake1", "example.org", "", "external-dns.kubernetes.io/hostname: dns-through-hostname.com"),
                        set("example.org A 8.8.8.8" + vsKey, "dns-through-hostname.com A 8.8.8.8" + vsKey)),
                Arguments.of("virtualservice with hostname annotation having multiple hostnames, restricted by gw.hosts", lb("", "{ip: 1.2.3.4}")
                                + gw("[[\"*.bar.com\"]]", "")
                                + virtualService("default", "vs1", "fake1", "baz.bar.org", "",
                                "external-dns.kubernetes.io/hostname: \"foo.bar.com, another-dns-through-hostname.com\""),
                        set("foo.bar.com A 1.2.3.4" + vsKey)),
                Arguments.of("virtualservices with annotation and custom TTL", lb("", "{ip: 8.8.8.8}") + anyHost
                                + virtualService("default", "vs1", "fake1", "example.org", "", "external-dns.kubernetes.io/ttl: \"6\""),
                        set("example.org 6 A 8.8.8.8" + vsKey)),
                Arguments.of("namespaced vs.host", lb("", "{ip: 8.8.8.8}") + anyHost
                        + virtualService("default", "vs1", "fake1", "\"./example.org\"", "", ""), set("example.org A 8.8.8.8" + vsKey)),
                Arguments.of("a gateway that does not exist: a warning, no targets from it (records not kept)", lb("", "{ip: 8.8.8.8}") + anyHost
                                + virtualService("default", "vs1", "fake1, nothere", "example.org", "", ""),
                        set("example.org A 8.8.8.8" + vsKey, "PROBLEM virtualservice/default/vs1 GatewayNotFound")),
                Arguments.of("gateway ingress annotation; ingress not found (a Problem, records kept)", lb("", "{ip: 8.8.8.8}")
                                + gw("[[\"*\"]]", "external-dns.kubernetes.io/ingress: ingress1")
                                + virtualService("default", "vs1", "fake1", "example.org", "", ""),
                        set("PROBLEM virtualservice/default/vs1 InvalidAnnotation")),
                Arguments.of("complex setup with multiple gateways and multiple vs.hosts only matching some of the gateway (IP targets)",
                        lbService("istio-system", "svc1", "app: igw1", "", "{ip: 192.0.2.1}")
                                + lbService("testing1", "svc2", "app: igw2", "", "{ip: 192.0.2.2}")
                                + lbService("testing2", "svc3", "app: igw3", "", "{ip: 192.0.2.3}")
                                + ingress("testing1", "ingress1", "{ip: 192.0.2.4}") + ingress("testing3", "ingress3", "{ip: 192.0.2.5}")
                                + gateway("istio-system", "fake1", "app: igw1", "[[\"*\"]]", "")
                                + gateway("testing1", "fake2", "app: igw2", "[[\"*.baz.com\"], [\"*.bar.com\"]]", "")
                                + gateway("testing2", "fake3", "app: igw3", "[[\"*.bax.com\", \"*.bar.com\"]]", "")
                                + gateway("testing3", "fake4", "app: igw4", "[[\"*.bax.com\", \"*.bar.com\"]]",
                                "external-dns.kubernetes.io/ingress: testing1/ingress1")
                                + virtualService("testing3", "vs1", "istio-system/fake1, testing1/fake2", "somedomain.com, foo.bar.com", "", "")
                                + virtualService("testing2", "vs2", "testing1/fake2, fake3", "hello.bar.com, hello.bax.com, hello.bak.com", "", "")
                                + virtualService("testing1", "vs3", "istio-system/fake1, testing2/fake3", "world.bax.com, world.bak.com", "", "")
                                + virtualService("testing1", "vs4", "istio-system/fake1, testing3/fake4", "foo.bax.com, foo.bak.com", "", ""),
                        set("somedomain.com A 192.0.2.1 virtualservice/testing3/vs1", "foo.bar.com A 192.0.2.1,192.0.2.2 virtualservice/testing3/vs1",
                                "hello.bar.com A 192.0.2.2,192.0.2.3 virtualservice/testing2/vs2", "hello.bax.com A 192.0.2.3 virtualservice/testing2/vs2",
                                "world.bak.com A 192.0.2.1 virtualservice/testing1/vs3", "world.bax.com A 192.0.2.1,192.0.2.3 virtualservice/testing1/vs3",
                                "foo.bak.com A 192.0.2.1 virtualservice/testing1/vs4", "foo.bax.com A 192.0.2.1,192.0.2.4 virtualservice/testing1/vs4")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("virtualServiceCases")
    void istioVirtualService(String title, String docs, Set<String> expected) {
        assertEquals(expected, run("istio-virtualservice", docs), title);
    }

    /** Two kinds named Gateway in two groups are two kinds: with both Gateway sources on, each reads its own. */
    @Test
    void istioAndGatewayApiGatewaysAreDifferentKinds() {
        var translation = new ObjectTranslation(List.of(new IstioGatewaySource(), new GatewayRouteSource(RouteKind.HTTP, GatewayFilter.ALL)),
                new SourceSettings(Optional.empty(), false, Optional.empty()), Set.of("istio-gateway", "gateway-httproute"));
        assertEquals(Set.of("Gateway.networking.istio.io", "Gateway.gateway.networking.k8s.io"),
                translation.kinds().stream().map(WatchedKind::key).filter(k -> k.startsWith("Gateway.")).collect(Collectors.toSet()));
        String gatewayApi = """
                apiVersion: gateway.networking.k8s.io/v1
                kind: Gateway
                metadata: {name: fake1, namespace: default}
                spec: {gatewayClassName: x, listeners: [{name: http, protocol: HTTP, port: 80, hostname: api.example.org}]}
                status: {addresses: [{type: IPAddress, value: 192.0.2.80}]}
                ---
                """;
        var lines = new TreeSet<String>();
        translation.translate(parse(lb("", "{ip: 8.8.8.8}") + gw("[[foo.bar]]", "") + gatewayApi)).endpoints()
                .forEach(e -> lines.add(e.dnsName() + " " + e.targets() + " " + e.resource()));
        assertEquals(Set.of("foo.bar [8.8.8.8] gateway/default/fake1"), lines);
    }
}
