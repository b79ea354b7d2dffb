package io.meshdns.exposure.source.istio;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.meshdns.exposure.source.LabelSelector;
import io.meshdns.exposure.source.ObjectTranslation;
import io.meshdns.exposure.source.SourceFilter;
import io.meshdns.exposure.source.SourceSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * meshdns.exposure.namespace and the Istio Gateway's ingress lookup (ExternalDNS's istio_gateway.go reads Services and
 * Ingresses through informers of --namespace): unset, the selected Service is found in any namespace; set, only there.
 */
class IstioGatewayNamespaceTest {

    static final String DOCS = """
            apiVersion: v1
            kind: Service
            metadata: {name: istio-ingressgateway, namespace: istio-system}
            spec: {type: LoadBalancer, clusterIP: 10.96.0.9, selector: {istio: ingressgateway}, ports: [{port: 443}]}
            status: {loadBalancer: {ingress: [{ip: 203.0.113.7}]}}
            ---
            apiVersion: v1
            kind: Service
            metadata: {name: local-gateway, namespace: shop}
            spec: {type: LoadBalancer, clusterIP: 10.96.0.10, selector: {istio: ingressgateway}, ports: [{port: 443}]}
            status: {loadBalancer: {ingress: [{ip: 198.51.100.8}]}}
            ---
            apiVersion: networking.k8s.io/v1
            kind: Ingress
            metadata: {name: front, namespace: istio-system}
            spec: {rules: []}
            status: {loadBalancer: {ingress: [{ip: 192.0.2.44}]}}
            ---
            apiVersion: networking.istio.io/v1
            kind: Gateway
            metadata: {name: public, namespace: shop}
            spec:
              selector: {istio: ingressgateway}
              servers: [{port: {number: 443, name: https, protocol: HTTPS}, hosts: [shop.example.com]}]
            ---
            apiVersion: networking.istio.io/v1
            kind: Gateway
            metadata: {name: fronted, namespace: shop, annotations: {external-dns.kubernetes.io/ingress: istio-system/front}}
            spec:
              servers: [{port: {number: 443, name: https, protocol: HTTPS}, hosts: [fronted.example.com]}]
            ---
            """;

    static Set<String> run(Optional<String> namespace) {
        var objects = new ArrayList<HasMetadata>();
        for (String doc : DOCS.split("(?m)^---\\s*$")) if (!doc.isBlank()) objects.add((HasMetadata) new KubernetesSerialization().unmarshal(doc));
        var filter = new SourceFilter(namespace, LabelSelector.parse("", ""), LabelSelector.parse("", ""));
        var out = new ObjectTranslation(List.of(new IstioGatewaySource()), new SourceSettings(Optional.empty(), false, Optional.empty()),
                Set.of("istio-gateway"), filter).translate(objects);
        var records = new TreeSet<String>();
        out.endpoints().forEach(e -> records.add(e.dnsName() + " " + String.join(",", e.targets())));
        out.problems().forEach(p -> records.add(p.name() + ": " + p.reason()));
        return records;
    }

    @Test
    void withoutANamespaceTheSelectedServicesOfEveryNamespaceCount() {
        assertEquals(Set.of("shop.example.com 198.51.100.8,203.0.113.7", "fronted.example.com 192.0.2.44"), run(Optional.empty()));
    }

    @Test
    void withANamespaceOnlyItsServicesAndIngressesCount() {
        assertEquals(Set.of("shop.example.com 198.51.100.8", "fronted: InvalidAnnotation"), run(Optional.of("shop")));
    }
}
