package io.meshdns.exposure.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.meshdns.exposure.source.istio.IstioGatewaySource;
import io.meshdns.exposure.source.istio.IstioVirtualServiceSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * ExternalDNS's --fqdn-template and --combine-fqdn-annotation, one helper for the Service, Ingress, Istio Gateway and
 * VirtualService sources: the template's names when an object has none of its own, added to them with combine.
 */
class FqdnTemplateTest {

    static final KubernetesSerialization YAML = new KubernetesSerialization();

    static final String LB_SERVICE = """
            apiVersion: v1
            kind: Service
            metadata: {name: istio-ingressgateway, namespace: istio-system, labels: {team: edge}}
            spec: {type: LoadBalancer, clusterIP: 10.96.0.9, selector: {istio: ingressgateway}, ports: [{port: 443}]}
            status: {loadBalancer: {ingress: [{ip: 203.0.113.7}]}}
            ---
            """;
    static final String INGRESS = """
            apiVersion: networking.k8s.io/v1
            kind: Ingress
            metadata: {name: shop, namespace: web, labels: {team: shop}, annotations: {%s}}
            spec: {rules: [%s]}
            status: {loadBalancer: {ingress: [{ip: 198.51.100.4}]}}
            ---
            """;
    static final String GATEWAY = """
            apiVersion: networking.istio.io/v1
            kind: Gateway
            metadata: {name: public, namespace: istio-system}
            spec:
              selector: {istio: ingressgateway}
              servers: [{port: {number: 443, name: https, protocol: HTTPS}, hosts: [%s]}]
            ---
            """;
    static final String VIRTUAL_SERVICE = """
            apiVersion: networking.istio.io/v1
            kind: VirtualService
            metadata: {name: cart, namespace: istio-system}
            spec: {hosts: [%s], gateways: [public]}
            ---
            """;

    record Result(Set<String> records, List<Problem> problems) {
    }

    static Result run(String template, boolean combine, String... docs) {
        var objects = new ArrayList<HasMetadata>();
        for (String doc : String.join("", docs).split("(?m)^---\\s*$")) if (!doc.isBlank()) objects.add((HasMetadata) YAML.unmarshal(doc));
        var settings = new SourceSettings(Optional.empty(), false, Optional.ofNullable(template), List.of(), false, "", combine);
        var out = new ObjectTranslation(List.of(new ServiceSource(settings), new IngressSource(), new IstioGatewaySource(),
                new IstioVirtualServiceSource()), settings, Set.of("service", "ingress", "istio-gateway", "istio-virtualservice"))
                .translate(objects);
        var records = new TreeSet<String>();
        out.endpoints().forEach(e -> records.add(e.dnsName() + " " + e.recordType() + " " + String.join(",", e.targets()) + " " + e.resource()));
        return new Result(records, out.problems());
    }

    static HasMetadata object(String doc) {
        return (HasMetadata) YAML.unmarshal(doc.replace("---", ""));
    }

    @Test
    void theTemplateLanguageANameTemplateUses() {
        HasMetadata ing = object(INGRESS.formatted("owner/contact: ops", ""));
        assertEquals(List.of("shop.web.example.org"), FqdnTemplate.parse("{{.Name}}.{{.Namespace}}.example.org").expand(ing));
        assertEquals(List.of("shop.web.example.org"), FqdnTemplate.parse("{{name}}.{{namespace}}.example.org").expand(ing), "meshdns's older form");
        assertEquals(List.of("ingress-shop.example.org", "shop.shop.example.org"),
                FqdnTemplate.parse(" {{ .Name }}.{{.Labels.team}}.example.org. ,{{.Kind | printf}}".replace(",{{.Kind | printf}}", ", {{.Kind}}-{{.Name}}.example.org"))
                        .expand(ing).stream().map(s -> s.toLowerCase()).sorted().toList());
        assertEquals(List.of("ops.example.org"), FqdnTemplate.parse("{{index .Annotations \"owner/contact\"}}.example.org").expand(ing));
        var missing = assertThrows(IllegalArgumentException.class, () -> FqdnTemplate.parse("{{.Labels.tier}}.example.org").expand(ing));
        assertTrue(missing.getMessage().contains("label 'tier'"), missing.getMessage());
        for (String bad : List.of("{{.Spec.Rules}}.example.org", "{{.Name}.example.org", "{{.Name}}}}", "{{if .Name}}x{{end}}")) {
            var e = assertThrows(IllegalArgumentException.class, () -> FqdnTemplate.parse(bad), bad);
            assertTrue(e.getMessage().startsWith("meshdns.exposure.fqdn-template: "), e.getMessage());
        }
    }

    @Test
    void anIngressWithoutNamesTakesTheTemplatesAndCombineAddsThemToItsOwn() {
        String noHosts = INGRESS.formatted("", "{http: {paths: []}}");
        String withHost = INGRESS.formatted("", "{host: shop.example.com}");
        assertEquals(Set.of(), run(null, false, noHosts).records());
        assertEquals(Set.of("shop.web.example.org A 198.51.100.4 ingress/web/shop"), run("{{.Name}}.{{.Namespace}}.example.org", false, noHosts).records());
        assertEquals(Set.of("shop.example.com A 198.51.100.4 ingress/web/shop"), run("{{.Name}}.{{.Namespace}}.example.org", false, withHost).records());
        assertEquals(Set.of("shop.example.com A 198.51.100.4 ingress/web/shop", "shop.web.example.org A 198.51.100.4 ingress/web/shop"),
                run("{{.Name}}.{{.Namespace}}.example.org", true, withHost).records());
    }

    @Test
    void anIstioGatewayAndAVirtualServiceTakeTheTemplatesNamesAtTheirTargets() {
        String gwNoHosts = GATEWAY.formatted("\"*\"");
        assertEquals(Set.of("public.gw.example.org A 203.0.113.7 gateway/istio-system/public"),
                run("{{.Name}}.gw.example.org", false, LB_SERVICE, gwNoHosts).records().stream()
                        .filter(l -> l.contains("gateway/")).collect(java.util.stream.Collectors.toSet()));
        String gwWithHost = GATEWAY.formatted("shop.example.com");
        assertEquals(Set.of("public.gw.example.org A 203.0.113.7 gateway/istio-system/public", "shop.example.com A 203.0.113.7 gateway/istio-system/public"),
                run("{{.Name}}.gw.example.org", true, LB_SERVICE, gwWithHost).records().stream()
                        .filter(l -> l.contains("gateway/")).collect(java.util.stream.Collectors.toSet()));
        // a VirtualService's template name gets the targets of the Gateways it binds to, as its own hosts do
        String vs = VIRTUAL_SERVICE.formatted("\"*\"");
        assertEquals(Set.of("cart.vs.example.org A 203.0.113.7 virtualservice/istio-system/cart"),
                run("{{.Name}}.vs.example.org", false, LB_SERVICE, gwNoHosts, vs).records().stream()
                        .filter(l -> l.contains("virtualservice/")).collect(java.util.stream.Collectors.toSet()));
    }

    @Test
    void aServiceIsStillReadTheSameWay() {
        assertEquals(Set.of("istio-ingressgateway.istio-system.example.org A 203.0.113.7 service/istio-system/istio-ingressgateway"),
                run("{{.Name}}.{{.Namespace}}.example.org", false, LB_SERVICE).records());
        assertEquals(Set.of("edge.example.org A 203.0.113.7 service/istio-system/istio-ingressgateway"),
                run("{{.Labels.team}}.example.org", false, LB_SERVICE).records());
    }

    @Test
    void anObjectTheTemplateCannotFillIsAProblemOnItAloneAndKeepsItsRecords() {
        String noHosts = INGRESS.formatted("", "{http: {paths: []}}");
        var r = run("{{.Labels.tier}}.example.org", false, noHosts, LB_SERVICE.replace("team: edge", "tier: edge"));
        assertEquals(Set.of("edge.example.org A 203.0.113.7 service/istio-system/istio-ingressgateway"), r.records(), "the pass goes on");
        assertEquals(1, r.problems().size(), r.problems().toString());
        Problem p = r.problems().get(0);
        assertEquals(Problem.INVALID_FQDN_TEMPLATE, p.reason());
        assertEquals("Ingress web/shop", p.kind() + " " + p.namespace() + "/" + p.name());
        assertTrue(p.keepsRecords());
    }
}
