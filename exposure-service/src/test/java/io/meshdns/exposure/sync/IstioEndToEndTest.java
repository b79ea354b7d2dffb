package io.meshdns.exposure.sync;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.meshdns.exposure.testing.BindBackedExposureTest;
import io.meshdns.exposure.testing.BindTestResource;
import io.meshdns.exposure.testing.RunningExposure;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Istio sources in the running service: fabric8 CRUD test server as the cluster (the Istio CRDs registered while
 * it runs, before anything is watched), a real BIND9 as the DNS server. A Gateway's hosts and a VirtualService's
 * hosts bound to it are published at the ingress gateway Service's load balancer address, follow it when it moves,
 * and go when their objects go; ServiceEntry hosts are published at Istio's allocated VIPs; nothing foreign is touched.
 */
@QuarkusTest
@WithKubernetesTestServer(crud = true)
@WithTestResource(BindTestResource.class)
class IstioEndToEndTest extends BindBackedExposureTest {

    static final ResourceDefinitionContext GATEWAYS = istio("Gateway", "gateways");
    static final ResourceDefinitionContext VIRTUAL_SERVICES = istio("VirtualService", "virtualservices");
    static final ResourceDefinitionContext SERVICE_ENTRIES = istio("ServiceEntry", "serviceentries");

    static ResourceDefinitionContext istio(String kind, String plural) {
        return RunningExposure.kind("networking.istio.io", kind, plural);
    }

    void ensureCrd(ResourceDefinitionContext kind) {
        RunningExposure.ensureCrd(client, kind);
    }

    void ingressGatewayAt(String ip) {
        Service svc = client.services().inNamespace("istio-system").withName("istio-ingressgateway").get();
        if (svc == null) {
            svc = client.services().resource(new ServiceBuilder().withNewMetadata().withNamespace("istio-system").withName("istio-ingressgateway")
                    .endMetadata().withNewSpec().withType("LoadBalancer").withSelector(Map.of("istio", "ingressgateway"))
                    .addNewPort().withName("http2").withPort(80).withProtocol("TCP").endPort().endSpec().build()).create();
        }
        client.services().resource(new ServiceBuilder(svc).withNewStatus().withNewLoadBalancer().addNewIngress().withIp(ip).endIngress()
                .endLoadBalancer().endStatus().build()).updateStatus();
    }

    /** ExternalDNS's record events (events-emit is on in the test profile) on the object that asked for the record. */
    void awaitEvent(String kind, String name, String reason, String messageStart) {
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).until(() -> client.v1().events().inNamespace("default").list()
                .getItems().stream().anyMatch(e -> kind.equals(e.getInvolvedObject().getKind()) && name.equals(e.getInvolvedObject().getName())
                        && reason.equals(e.getReason()) && e.getMessage().startsWith(messageStart)));
    }

    @Test
    void gatewayAndVirtualServiceHostsFollowTheIngressGateway() throws Exception {
        controller.reconcileNow(); // the Istio CRDs are absent: the istio sources idle
        ensureCrd(GATEWAYS);
        ensureCrd(VIRTUAL_SERVICES);
        ingressGatewayAt("203.0.113.60");
        client.genericKubernetesResources(GATEWAYS).resource(new GenericKubernetesResourceBuilder()
                .withApiVersion("networking.istio.io/v1").withKind("Gateway")
                .withNewMetadata().withNamespace("default").withName("edge").endMetadata()
                .withAdditionalProperties(Map.of("spec", Map.of("selector", Map.of("istio", "ingressgateway"),
                        "servers", List.of(Map.of("port", Map.of("number", 80, "name", "http", "protocol", "HTTP"),
                                "hosts", List.of("istio-system/gw.mesh.test", "*/*.apps.mesh.test"))))))
                .build()).create();
        client.genericKubernetesResources(VIRTUAL_SERVICES).resource(new GenericKubernetesResourceBuilder()
                .withApiVersion("networking.istio.io/v1").withKind("VirtualService")
                .withNewMetadata().withNamespace("default").withName("shop").endMetadata()
                .withAdditionalProperties(Map.of("spec", Map.of("gateways", List.of("edge", "mesh"),
                        "hosts", List.of("shop.apps.mesh.test", "shop.elsewhere.mesh.test"),
                        "http", List.of(Map.of("route", List.of(Map.of("destination", Map.of("host", "shop.default.svc.cluster.local"))))))))
                .build()).create();

        reconcileUntil("gw.mesh.test", "A", List.of("203.0.113.60"));
        reconcileUntil("shop.apps.mesh.test", "A", List.of("203.0.113.60"));
        assertEquals(List.of(), bind().dig("shop.elsewhere.mesh.test", "A"), "a host no server of the Gateway admits has no target");
        var zone = bind().digAxfr("mesh.test");
        assertTrue(zone.stream().anyMatch(l -> l.contains("resource=gateway/default/edge")), "ownership TXT names the Gateway as ExternalDNS does");
        assertTrue(zone.stream().anyMatch(l -> l.contains("resource=virtualservice/default/shop")), zone.toString());

        awaitEvent("Gateway", "edge", "RecordReady", "(external-dns) record:gw.mesh.test,owner:test-cluster,type:A");

        ingressGatewayAt("203.0.113.61");
        reconcileUntil("shop.apps.mesh.test", "A", List.of("203.0.113.61"));
        reconcileUntil("gw.mesh.test", "A", List.of("203.0.113.61"));

        client.genericKubernetesResources(VIRTUAL_SERVICES).inNamespace("default").withName("shop").delete();
        // shop.apps.mesh.test now answers from the Gateway's wildcard: the zone shows the VirtualService's records gone
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100)).until(() -> {
            controller.reconcileNow();
            return bind().digAxfr("mesh.test").stream().noneMatch(l -> l.startsWith("shop.apps.mesh.test.") || l.contains("virtualservice/default/shop"));
        });
        assertEquals(List.of("203.0.113.61"), bind().dig("*.apps.mesh.test", "A"), "the Gateway's wildcard host stays");
        client.genericKubernetesResources(GATEWAYS).inNamespace("default").withName("edge").delete();
        reconcileUntil("gw.mesh.test", "A", List.of());
        reconcileUntil("*.apps.mesh.test", "A", List.of());
        awaitEvent("Gateway", "edge", "RecordDeleted", "(external-dns) record:gw.mesh.test,owner:test-cluster,type:A");
        awaitEvent("VirtualService", "shop", "RecordDeleted", "(external-dns) record:shop.apps.mesh.test,");
        client.services().inNamespace("istio-system").withName("istio-ingressgateway").delete();
        assertEquals(List.of("192.0.2.99"), bind().dig("foreign.mesh.test", "A"));
        assertEquals(List.of("\"hand-made, not ours\""), bind().dig("foreign.mesh.test", "TXT"));
    }

    void serviceEntry(String name, List<String> hosts, Map<String, Object> status) {
        client.genericKubernetesResources(SERVICE_ENTRIES).resource(new GenericKubernetesResourceBuilder()
                .withApiVersion("networking.istio.io/v1").withKind("ServiceEntry")
                .withNewMetadata().withNamespace("default").withName(name).endMetadata()
                .withAdditionalProperties(Map.of("spec", Map.of("hosts", hosts, "resolution", "DNS",
                        "ports", List.of(Map.of("number", 443, "name", "https", "protocol", "TLS"))), "status", status))
                .build()).create();
    }

    /**
     * A ServiceEntry published at the VIP Istio allocated in its status; one with a host in the cluster zone and a
     * wildcard without address gets Warning Events for those and its good host is still published, as is the other.
     */
    @Test
    void serviceEntryHostsAtTheirAllocatedVips() throws Exception {
        controller.reconcileNow();
        ensureCrd(SERVICE_ENTRIES);
        serviceEntry("payments", List.of("pay.mesh.test"), Map.of("addresses", List.of(Map.of("value", "240.240.0.7", "host", "pay.mesh.test"))));
        serviceEntry("mixed", List.of("payments.default.svc.cluster.local", "*.wild.mesh.test", "mixed.mesh.test"),
                Map.of("addresses", List.of(Map.of("value", "240.240.0.8", "host", "mixed.mesh.test"))));

        reconcileUntil("pay.mesh.test", "A", List.of("240.240.0.7"));
        reconcileUntil("mixed.mesh.test", "A", List.of("240.240.0.8"));
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            controller.reconcileNow();
            var reasons = client.v1().events().inNamespace("default").list().getItems().stream()
                    .filter(e -> "mixed".equals(e.getInvolvedObject().getName()) && "ServiceEntry".equals(e.getInvolvedObject().getKind()))
                    .map(e -> e.getReason()).toList();
            return reasons.contains("HostInClusterZone") && reasons.contains("WildcardWithoutTarget");
        });
        assertEquals(List.of(), bind().dig("x.wild.mesh.test", "A"));
        assertTrue(bind().digAxfr("mesh.test").stream().anyMatch(l -> l.contains("resource=serviceentry/default/payments")));

        client.genericKubernetesResources(SERVICE_ENTRIES).inNamespace("default").withName("payments").delete();
        client.genericKubernetesResources(SERVICE_ENTRIES).inNamespace("default").withName("mixed").delete();
        reconcileUntil("pay.mesh.test", "A", List.of());
        reconcileUntil("mixed.mesh.test", "A", List.of());
        assertEquals(List.of("192.0.2.99"), bind().dig("foreign.mesh.test", "A"));
    }
}
