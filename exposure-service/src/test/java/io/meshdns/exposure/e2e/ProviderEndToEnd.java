package io.meshdns.exposure.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.IngressBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.meshdns.exposure.sync.ExposureController;
import io.meshdns.exposure.testing.DnsEndpoints;
import io.meshdns.exposure.testing.RunningExposure;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Service, Ingress and DNSEndpoint, and a Gateway API route and an Istio Gateway, in the fabric8 CRUD server → the
 * whole exposure-service → a real backend; the records and the ownership TXT as ExternalDNS writes them; update,
 * delete, the foreign record untouched. One subclass per provider, each with its own Quarkus boot and backend: the
 * route sources and the provider seam meet nowhere but in the Endpoint.
 */
abstract class ProviderEndToEnd {

    static final String CLAIM = "heritage=external-dns,external-dns/owner=test-cluster,external-dns/resource=";
    static final ResourceDefinitionContext DNS_ENDPOINTS = RunningExposure.DNS_ENDPOINTS;

    @Inject
    KubernetesClient client;

    @Inject
    ExposureController controller;

    @BeforeEach
    void ready() {
        RunningExposure.awaitReady(controller);
    }

    List<String> read(String name, String type) {
        try {
            return Backends.reader.read(name, type);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    void reconcileUntil(String name, String type, List<String> expected) {
        RunningExposure.reconcileUntil(controller, Duration.ofMillis(200), expected, () -> read(name, type));
    }

    void createService(String name, String host, String ip) {
        client.services().resource(new ServiceBuilder().withNewMetadata().withNamespace("default").withName(name)
                .withAnnotations(Map.of("external-dns.kubernetes.io/hostname", host)).endMetadata()
                .withNewSpec().withType("LoadBalancer").withClusterIP("10.96.0.30").addNewPort().withPort(80).endPort().endSpec().build()).create();
        setServiceIp(name, ip);
    }

    void setServiceIp(String name, String ip) {
        Service withStatus = new ServiceBuilder(client.services().inNamespace("default").withName(name).get())
                .withNewStatus().withNewLoadBalancer().addNewIngress().withIp(ip).endIngress().endLoadBalancer().endStatus().build();
        client.services().resource(withStatus).updateStatus();
    }

    @Test
    void serviceIngressAndDnsEndpointArePublishedUpdatedAndDeleted() {
        createService("web", "web.mesh.test", "203.0.113.10");
        Ingress ing = new IngressBuilder().withNewMetadata().withNamespace("default").withName("site").endMetadata()
                .withNewSpec().addNewRule().withHost("site.mesh.test").endRule().endSpec().build();
        client.network().v1().ingresses().resource(ing).create();
        client.network().v1().ingresses().resource(new IngressBuilder(client.network().v1().ingresses().inNamespace("default").withName("site").get())
                .withNewStatus().withNewLoadBalancer().addNewIngress().withIp("203.0.113.20").endIngress().endLoadBalancer().endStatus().build())
                .updateStatus();
        RunningExposure.ensureCrd(client, DNS_ENDPOINTS);
        client.genericKubernetesResources(DNS_ENDPOINTS).resource(DnsEndpoints.object("default", "crd",
                "{dnsName: crd.mesh.test, recordType: A, targets: [198.51.100.5], recordTTL: 120}",
                "{dnsName: alias.mesh.test, recordType: CNAME, targets: [web.mesh.test]}")).create();

        reconcileUntil("web.mesh.test", "A", List.of("203.0.113.10"));
        reconcileUntil("site.mesh.test", "A", List.of("203.0.113.20"));
        reconcileUntil("crd.mesh.test", "A", List.of("198.51.100.5"));
        assertEquals(List.of("web.mesh.test"), read("alias.mesh.test", "CNAME"));
        assertEquals(List.of(CLAIM + "service/default/web"), read("a-web.mesh.test", "TXT"));
        assertEquals(List.of(CLAIM + "ingress/default/site"), read("a-site.mesh.test", "TXT"));
        assertEquals(List.of(CLAIM + "crd/default/crd"), read("a-crd.mesh.test", "TXT"));
        assertEquals(List.of(CLAIM + "crd/default/crd"), read("cname-alias.mesh.test", "TXT"));

        // converged: another pass changes nothing
        assertEquals(0, controller.reconcileNow().stream().mapToInt(o -> o.ops().size()).sum());

        setServiceIp("web", "203.0.113.11");
        reconcileUntil("web.mesh.test", "A", List.of("203.0.113.11"));
        assertEquals(List.of(CLAIM + "service/default/web"), read("a-web.mesh.test", "TXT"), "claim unchanged by the update");

        client.services().inNamespace("default").withName("web").delete();
        client.network().v1().ingresses().inNamespace("default").withName("site").delete();
        client.genericKubernetesResources(DNS_ENDPOINTS).inNamespace("default").withName("crd").delete();
        reconcileUntil("web.mesh.test", "A", List.of());
        reconcileUntil("site.mesh.test", "A", List.of());
        reconcileUntil("crd.mesh.test", "A", List.of());
        assertEquals(List.of(), read("a-web.mesh.test", "TXT"));
        assertEquals(List.of(), read("alias.mesh.test", "CNAME"));
        assertEquals(List.of("192.0.2.99"), read("foreign.mesh.test", "A"), "the foreign record is untouched");
    }

    static ResourceDefinitionContext kind(String group, String kind, String plural) {
        return RunningExposure.kind(group, kind, plural);
    }

    void ensureCrd(ResourceDefinitionContext k) {
        RunningExposure.ensureCrd(client, k);
    }

    @Test
    void anAcceptedHttpRouteAndAnIstioGatewayArePublishedAndWithdrawn() {
        var gateways = kind("gateway.networking.k8s.io", "Gateway", "gateways");
        var routes = kind("gateway.networking.k8s.io", "HTTPRoute", "httproutes");
        var istioGateways = kind("networking.istio.io", "Gateway", "gateways");
        ensureCrd(gateways);
        ensureCrd(routes);
        ensureCrd(istioGateways);
        RunningExposure.createEdgeGateway(client, gateways, "203.0.113.50");
        client.genericKubernetesResources(routes).resource(new GenericKubernetesResourceBuilder()
                .withApiVersion("gateway.networking.k8s.io/v1").withKind("HTTPRoute")
                .withNewMetadata().withNamespace("default").withName("shop").endMetadata()
                .withAdditionalProperties(Map.of("spec", Map.of("hostnames", List.of("shop.mesh.test"), "parentRefs", List.of(Map.of("name", "edge")))))
                .build()).create();
        // accepted at the route's generation as the CRUD server keeps it
        var route = client.genericKubernetesResources(routes).inNamespace("default").withName("shop").get();
        long generation = route.getMetadata().getGeneration() == null ? 0 : route.getMetadata().getGeneration();
        route.getAdditionalProperties().put("status", Map.of("parents", List.of(Map.of("parentRef", Map.of("name", "edge"),
                "controllerName", "example.io/gw", "conditions", List.of(Map.of("type", "Accepted", "status", "True",
                        "observedGeneration", generation, "reason", "Accepted", "message", "", "lastTransitionTime", "2026-01-01T00:00:00Z"))))));
        client.genericKubernetesResources(routes).resource(route).updateStatus();
        client.services().resource(new ServiceBuilder().withNewMetadata().withNamespace("default").withName("ingressgateway").endMetadata()
                .withNewSpec().withType("LoadBalancer").withSelector(Map.of("istio", "ingressgateway")).addNewPort().withPort(80).endPort().endSpec()
                .build()).create();
        client.services().resource(new ServiceBuilder(client.services().inNamespace("default").withName("ingressgateway").get())
                .withNewStatus().withNewLoadBalancer().addNewIngress().withIp("203.0.113.60").endIngress().endLoadBalancer().endStatus().build())
                .updateStatus();
        client.genericKubernetesResources(istioGateways).resource(new GenericKubernetesResourceBuilder()
                .withApiVersion("networking.istio.io/v1").withKind("Gateway")
                .withNewMetadata().withNamespace("default").withName("istio-edge").endMetadata()
                .withAdditionalProperties(Map.of("spec", Map.of("selector", Map.of("istio", "ingressgateway"),
                        "servers", List.of(Map.of("port", Map.of("number", 80, "name", "http", "protocol", "HTTP"), "hosts", List.of("*/mesh-gw.mesh.test"))))))
                .build()).create();

        reconcileUntil("shop.mesh.test", "A", List.of("203.0.113.50"));
        reconcileUntil("mesh-gw.mesh.test", "A", List.of("203.0.113.60"));
        assertEquals(List.of(CLAIM + "httproute/default/shop"), read("a-shop.mesh.test", "TXT"));
        assertEquals(List.of(CLAIM + "gateway/default/istio-edge"), read("a-mesh-gw.mesh.test", "TXT"));

        client.genericKubernetesResources(routes).inNamespace("default").withName("shop").delete();
        client.genericKubernetesResources(istioGateways).inNamespace("default").withName("istio-edge").delete();
        reconcileUntil("shop.mesh.test", "A", List.of());
        reconcileUntil("mesh-gw.mesh.test", "A", List.of());
        assertEquals(List.of(), read("a-shop.mesh.test", "TXT"));
        client.genericKubernetesResources(gateways).inNamespace("default").withName("edge").delete();
        client.services().inNamespace("default").withName("ingressgateway").delete();
        assertEquals(List.of("192.0.2.99"), read("foreign.mesh.test", "A"), "the foreign record is untouched");
    }
}
