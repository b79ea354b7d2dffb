package io.meshdns.exposure.sync;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.meshdns.exposure.testing.BindBackedExposureTest;
import io.meshdns.exposure.testing.BindTestResource;
import io.meshdns.exposure.testing.DnsEndpoints;
import io.meshdns.exposure.testing.RunningExposure;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.Lookup;
import org.xbill.DNS.Record;
import org.xbill.DNS.SRVRecord;
import org.xbill.DNS.Type;

/**
 * The whole service in one Quarkus boot: fabric8 CRUD test server as the cluster, a real BIND9 as
 * the DNS server. Most scenarios call {@link ExposureController#reconcileNow()} (no timers); one
 * relies on the informer events alone.
 */
@QuarkusTest
@WithKubernetesTestServer(crud = true)
@WithTestResource(BindTestResource.class)
class ExposureServiceTest extends BindBackedExposureTest {

    @KubernetesTestServer
    KubernetesServer server;

    static Service loadBalancer(String ns, String name, Map<String, String> annotations, int port, String portName) {
        return new ServiceBuilder().withNewMetadata().withNamespace(ns).withName(name).withAnnotations(annotations).endMetadata()
                .withNewSpec().withType("LoadBalancer").withClusterIP("10.96.0.10")
                .addNewPort().withName(portName).withPort(port).withProtocol("TCP").endPort().endSpec().build();
    }

    Service createWithIngressIp(Service svc, String ip) {
        client.services().resource(svc).create();
        Service withStatus = new ServiceBuilder(client.services().inNamespace(svc.getMetadata().getNamespace())
                .withName(svc.getMetadata().getName()).get())
                .withNewStatus().withNewLoadBalancer().addNewIngress().withIp(ip).endIngress().endLoadBalancer().endStatus().build();
        return client.services().resource(withStatus).updateStatus();
    }

    @Test
    void nsmRegistryResolvesLikeNsmDoes() throws Exception {
        createWithIngressIp(loadBalancer("nsm-system", "registry",
                Map.of("meshdns.io/expose", "true", "meshdns.io/srv-port", "registry"), 5002, "registry"), "203.0.113.10");
        reconcileUntil("registry.nsm-system.mesh.test", "SRV", List.of("0 0 5002 registry.nsm-system.mesh.test."));

        // exactly NSM's registry-proxy-dns: SRV on the plain name, then A on the same name
        Lookup srv = new Lookup("registry.nsm-system.mesh.test", Type.SRV);
        srv.setResolver(bind().resolver());
        srv.setCache(null);
        Record[] srvs = srv.run();
        assertEquals(Lookup.SUCCESSFUL, srv.getResult(), srv.getErrorString());
        assertEquals(5002, ((SRVRecord) srvs[0]).getPort());
        Lookup a = new Lookup("registry.nsm-system.mesh.test", Type.A);
        a.setResolver(bind().resolver());
        a.setCache(null);
        Record[] as = a.run();
        assertEquals(Lookup.SUCCESSFUL, a.getResult(), a.getErrorString());
        assertEquals("203.0.113.10", ((ARecord) as[0]).getAddress().getHostAddress());

        // the hostname annotation overrides the default name; the address moves
        Service svc = client.services().inNamespace("nsm-system").withName("registry").get();
        svc.getMetadata().getAnnotations().put("external-dns.alpha.kubernetes.io/hostname", "nsm-registry.mesh.test");
        svc.getMetadata().getAnnotations().put("external-dns.kubernetes.io/ttl", "60");
        client.services().resource(svc).update();
        reconcileUntil("nsm-registry.mesh.test", "SRV", List.of("0 0 5002 nsm-registry.mesh.test."));
        assertEquals(List.of(), bind().dig("registry.nsm-system.mesh.test", "SRV"));
        assertEquals(List.of("203.0.113.10"), bind().dig("nsm-registry.mesh.test", "A"));

        client.services().inNamespace("nsm-system").withName("registry").delete();
        reconcileUntil("nsm-registry.mesh.test", "A", List.of());
        assertEquals(List.of(), bind().dig("a-nsm-registry.mesh.test", "TXT"));
        assertForeignUntouched();
    }

    @Test
    void invalidAnnotationPostsEventAndNeverDeletes() throws Exception {
        createWithIngressIp(loadBalancer("default", "proxy",
                Map.of("external-dns.kubernetes.io/hostname", "proxy.mesh.test", "meshdns.io/srv-port", "5005"), 5005, "p"), "203.0.113.20");
        reconcileUntil("proxy.mesh.test", "SRV", List.of("0 0 5005 proxy.mesh.test."));

        Service svc = client.services().inNamespace("default").withName("proxy").get();
        svc.getMetadata().getAnnotations().put("meshdns.io/srv-port", "no-such-port");
        svc.getMetadata().getAnnotations().put("external-dns.kubernetes.io/ttl", "soon");
        client.services().resource(svc).update();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            controller.reconcileNow();
            return client.v1().events().inNamespace("default").list().getItems().stream()
                    .filter(e -> "proxy".equals(e.getInvolvedObject().getName()) && "InvalidAnnotation".equals(e.getReason()))
                    .map(e -> e.getMessage()).anyMatch(m -> m.contains("no-such-port"));
        });
        controller.reconcileNow();
        assertEquals(List.of("0 0 5005 proxy.mesh.test."), bind().dig("proxy.mesh.test", "SRV"), "errored object keeps its SRV");
        assertEquals(List.of("203.0.113.20"), bind().dig("proxy.mesh.test", "A"), "its valid records are still published");

        client.services().inNamespace("default").withName("proxy").delete();
        reconcileUntil("proxy.mesh.test", "A", List.of());
        assertEquals(List.of(), bind().dig("proxy.mesh.test", "SRV"));
    }

    /** One object whose translation throws (a load-balancer host no record can point at) keeps its records and does not stop the others. */
    @Test
    void anObjectThatCannotBeTranslatedKeepsItsRecordsAndTheOthersPublish() throws Exception {
        createWithIngressIp(loadBalancer("default", "gateway", Map.of("external-dns.kubernetes.io/hostname", "gateway.mesh.test"), 443, "tls"), "203.0.113.30");
        reconcileUntil("gateway.mesh.test", "A", List.of("203.0.113.30"));

        Service broken = new ServiceBuilder(client.services().inNamespace("default").withName("gateway").get())
                .editStatus().editLoadBalancer().withIngress().addNewIngress().withHostname("lb..bad").endIngress().endLoadBalancer().endStatus().build();
        client.services().resource(broken).updateStatus();
        createWithIngressIp(loadBalancer("default", "neighbour", Map.of("external-dns.kubernetes.io/hostname", "neighbour.mesh.test"), 443, "tls"), "203.0.113.31");
        reconcileUntil("neighbour.mesh.test", "A", List.of("203.0.113.31"));
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            controller.reconcileNow();
            return client.v1().events().inNamespace("default").list().getItems().stream()
                    .filter(e -> "gateway".equals(e.getInvolvedObject().getName()) && "Invalid".equals(e.getReason()))
                    .map(e -> e.getMessage()).anyMatch(m -> m.contains("lb..bad"));
        });
        assertEquals(List.of("203.0.113.30"), bind().dig("gateway.mesh.test", "A"), "the object that cannot be translated keeps its record");

        client.services().inNamespace("default").withName("gateway").delete();
        client.services().inNamespace("default").withName("neighbour").delete();
        reconcileUntil("gateway.mesh.test", "A", List.of());
        reconcileUntil("neighbour.mesh.test", "A", List.of());
        assertForeignUntouched();
    }

    @Test
    void dnsEndpointsAreWatchedOnceTheCrdExists() throws Exception {
        ensureDnsEndpointCrd();
        GenericKubernetesResource dnsEndpoint = DnsEndpoints.object("default", "records",
                "{dnsName: crd.mesh.test, recordType: A, targets: [198.51.100.5, 198.51.100.6], recordTTL: 120}",
                "{dnsName: crd.mesh.test, recordType: TXT, targets: [hello]}",
                "{dnsName: _sip._udp.crd.mesh.test, recordType: SRV, targets: [\"10 5 5060 crd.mesh.test\"]}",
                "{dnsName: outside.example.com, recordType: A, targets: [198.51.100.7]}",
                "{recordType: A, targets: [198.51.100.8]}");
        client.genericKubernetesResources(KubernetesSources.DNS_ENDPOINTS).resource(dnsEndpoint).create();
        reconcileUntil("crd.mesh.test", "A", List.of("198.51.100.5", "198.51.100.6"));
        assertEquals(List.of("\"hello\""), bind().dig("crd.mesh.test", "TXT"));
        assertEquals(List.of("10 5 5060 crd.mesh.test."), bind().dig("_sip._udp.crd.mesh.test", "SRV"));
        assertTrue(bind().digAxfr("mesh.test").stream().anyMatch(l -> l.startsWith("a-crd.mesh.test. ") && l.contains("resource=crd/default/records")),
                "ownership TXT visible in AXFR");
        assertTrue(bind().digAxfr("mesh.test").stream().noneMatch(l -> l.contains("outside.example.com")), "domain filter");

        client.genericKubernetesResources(KubernetesSources.DNS_ENDPOINTS).inNamespace("default").withName("records").delete();
        reconcileUntil("crd.mesh.test", "A", List.of());
        assertEquals(List.of(), bind().dig("_sip._udp.crd.mesh.test", "SRV"));
        assertForeignUntouched();
    }

    @Test
    void informerEventsAloneReconcileNodePortServices() throws Exception {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("node-1").endMetadata()
                .withNewStatus().addNewAddress().withType("InternalIP").withAddress("10.0.0.1").endAddress()
                .addNewAddress().withType("ExternalIP").withAddress("192.0.2.201").endAddress().endStatus().build()).create();
        client.services().resource(new ServiceBuilder().withNewMetadata().withNamespace("default").withName("np")
                .withAnnotations(Map.of("external-dns.kubernetes.io/hostname", "np.mesh.test")).endMetadata()
                .withNewSpec().withType("NodePort").withClusterIP("10.96.0.20")
                .addNewPort().withName("http").withPort(80).withNodePort(30080).withProtocol("TCP").endPort().endSpec().build()).create();
        // no reconcileNow(): the informer event plus the debounce do it
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                .until(() -> bind().dig("np.mesh.test", "A").equals(List.of("192.0.2.201")));
        await().atMost(Duration.ofSeconds(5))
                .until(() -> bind().dig("_http._tcp.np.mesh.test", "SRV").equals(List.of("0 50 30080 np.mesh.test.")));

        // only the Lease holder writes: the Lease exists and names a holder
        var lease = client.leases().inNamespace("default").withName("meshdns-exposure").get();
        assertTrue(lease != null && lease.getSpec().getHolderIdentity() != null && controller.isLeader(), "Lease held");

        given().get("/q/metrics").then().statusCode(200)
                .body(containsString("meshdns_exposure_last_sync_timestamp_seconds"))
                .body(containsString("meshdns_exposure_records{type=\"A\"}"))
                .body(containsString("meshdns_exposure_changes_total{action=\"create\"}"));
        client.services().inNamespace("default").withName("np").delete();
        await().atMost(Duration.ofSeconds(20)).until(() -> bind().dig("np.mesh.test", "A").isEmpty());
    }

    @Test
    void readyOnlyWithSyncedInformersAndAnAnsweringProvider() {
        await().atMost(Duration.ofSeconds(20)).until(controller::providersAnswered);
        given().get("/q/health/ready").then().statusCode(200)
                .body(containsString("\"informers-synced\": true")).body(containsString("\"providers-answered\": true"));
        given().get("/q/health/live").then().statusCode(200).body(containsString("exposure-sync"));
    }

    @Test
    void publishedAndInvalidEventsAndDnsEndpointStatus() throws Exception {
        ensureDnsEndpointCrd();
        GenericKubernetesResource dnsEndpoint = DnsEndpoints.object("default", "status-check",
                "{dnsName: status.mesh.test, recordType: A, targets: [198.51.100.40]}",
                "{dnsName: ttl.mesh.test, recordType: A, targets: [198.51.100.41], recordTTL: 4294967295}");
        client.genericKubernetesResources(KubernetesSources.DNS_ENDPOINTS).resource(dnsEndpoint).create();
        reconcileUntil("status.mesh.test", "A", List.of("198.51.100.40"));
        assertEquals(List.of(), bind().dig("ttl.mesh.test", "A"), "a TTL beyond 2^31-1 is refused, not wrapped");
        await().atMost(Duration.ofSeconds(10)).until(() -> client.v1().events().inNamespace("default").list().getItems().stream()
                .anyMatch(e -> "status-check".equals(e.getInvolvedObject().getName()) && "InvalidEndpoint".equals(e.getReason())
                        && e.getMessage().contains("4294967295")));
        var status = client.genericKubernetesResources(KubernetesSources.DNS_ENDPOINTS).inNamespace("default").withName("status-check")
                .get().getAdditionalProperties().get("status");
        assertTrue(String.valueOf(status).contains("type=Published") && String.valueOf(status).contains("InvalidEndpoint"), String.valueOf(status));

        createWithIngressIp(loadBalancer("default", "fine", Map.of("external-dns.kubernetes.io/hostname", "fine.mesh.test"), 80, "http"),
                "203.0.113.50");
        reconcileUntil("fine.mesh.test", "A", List.of("203.0.113.50"));
        await().atMost(Duration.ofSeconds(10)).until(() -> client.v1().events().inNamespace("default").list().getItems().stream()
                .anyMatch(e -> "fine".equals(e.getInvolvedObject().getName()) && "Published".equals(e.getReason())
                        && "Normal".equals(e.getType())));
        client.services().inNamespace("default").withName("fine").delete();
        client.genericKubernetesResources(KubernetesSources.DNS_ENDPOINTS).inNamespace("default").withName("status-check").delete();
        reconcileUntil("status.mesh.test", "A", List.of());
    }

    static final io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext GATEWAYS = context("Gateway", "gateways");
    static final io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext HTTP_ROUTES = context("HTTPRoute", "httproutes");

    static io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext context(String kind, String plural) {
        return RunningExposure.kind("gateway.networking.k8s.io", kind, plural);
    }

    void ensureCrd(String kind, String plural) {
        RunningExposure.ensureCrd(client, context(kind, plural));
    }

    /** Sets the route's status.parents to one Gateway parent, Accepted = {@code accepted} at the route's current generation. */
    void setAccepted(String route, boolean accepted) {
        for (int i = 0; i < 3; i++) {
            GenericKubernetesResource r = client.genericKubernetesResources(HTTP_ROUTES).inNamespace("default").withName(route).get();
            long generation = r.getMetadata().getGeneration() == null ? 0 : r.getMetadata().getGeneration();
            r.getAdditionalProperties().put("status", Map.of("parents", List.of(Map.of("parentRef", Map.of("name", "edge"),
                    "controllerName", "example.io/gw", "conditions", List.of(Map.of("type", "Accepted", "status", accepted ? "True" : "False",
                            "observedGeneration", generation, "reason", accepted ? "Accepted" : "NotAllowedByListeners",
                            "message", "", "lastTransitionTime", "2026-01-01T00:00:00Z"))))));
            client.genericKubernetesResources(HTTP_ROUTES).resource(r).update();
            Long after = client.genericKubernetesResources(HTTP_ROUTES).inNamespace("default").withName(route).get().getMetadata().getGeneration();
            if ((after == null ? 0 : after) == generation) return;
        }
        throw new AssertionError("the route's generation keeps moving");
    }

    /**
     * Gateway API: the CRDs installed while the service runs are picked up; a route is published only once its Gateway
     * has accepted it, at the Gateway's address; a withdrawn acceptance removes the records; nothing foreign is touched.
     */
    @Test
    void anHttpRouteIsPublishedWhileItsGatewayAcceptsIt() throws Exception {
        controller.reconcileNow(); // the CRDs are absent: the gateway source idles
        ensureCrd("Gateway", "gateways");
        ensureCrd("HTTPRoute", "httproutes");
        RunningExposure.createEdgeGateway(client, GATEWAYS, "203.0.113.50");
        client.genericKubernetesResources(HTTP_ROUTES).resource(new GenericKubernetesResourceBuilder()
                .withApiVersion("gateway.networking.k8s.io/v1").withKind("HTTPRoute")
                .withNewMetadata().withNamespace("default").withName("shop").endMetadata()
                .withAdditionalProperties(Map.of("spec", Map.of("hostnames", List.of("shop.mesh.test", "shop.elsewhere.test"),
                        "parentRefs", List.of(Map.of("name", "edge"))))).build()).create();
        setAccepted("shop", false);
        reconcileUntil("shop.mesh.test", "A", List.of());
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100)).until(() -> {
            controller.reconcileNow();
            return controller.sourcesReady();
        });

        setAccepted("shop", true);
        reconcileUntil("shop.mesh.test", "A", List.of("203.0.113.50"));
        assertTrue(bind().digAxfr("mesh.test").stream().anyMatch(l -> l.contains("resource=httproute/default/shop")),
                "ownership TXT names the route as ExternalDNS does");

        setAccepted("shop", false);
        reconcileUntil("shop.mesh.test", "A", List.of());
        client.genericKubernetesResources(HTTP_ROUTES).inNamespace("default").withName("shop").delete();
        client.genericKubernetesResources(GATEWAYS).inNamespace("default").withName("edge").delete();
        assertForeignUntouched();
    }

    void ensureDnsEndpointCrd() {
        RunningExposure.ensureCrd(client, RunningExposure.DNS_ENDPOINTS);
    }

    void assertForeignUntouched() throws Exception {
        assertEquals(List.of("192.0.2.99"), bind().dig("foreign.mesh.test", "A"));
        assertEquals(List.of("\"hand-made, not ours\""), bind().dig("foreign.mesh.test", "TXT"));
    }

    static <T> T unchecked(Callable<T> c) {
        try {
            return c.call();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
