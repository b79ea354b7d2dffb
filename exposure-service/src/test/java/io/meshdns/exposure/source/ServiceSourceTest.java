package io.meshdns.exposure.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.meshdns.exposure.endpoint.Endpoint;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** Pure translation of Services: every rule of ServiceSource, no cluster needed. */
class ServiceSourceTest {

    final ServiceSource source = new ServiceSource(new SourceSettings(Optional.of("nsm.example"), false, Optional.empty()));

    static Service svc(String type, Map<String, String> ann, String clusterIp) {
        return new ServiceBuilder().withNewMetadata().withNamespace("nsm-system").withName("registry").withUid("u1")
                .withAnnotations(ann).endMetadata()
                .withNewSpec().withType(type).withClusterIP(clusterIp)
                .addNewPort().withName("grpc").withPort(5002).withNodePort("NodePort".equals(type) ? 30002 : null).withProtocol("TCP").endPort()
                .endSpec()
                .withNewStatus().withNewLoadBalancer().addNewIngress().withIp("203.0.113.1").endIngress()
                .addNewIngress().withIp("2001:db8::1").endIngress().endLoadBalancer().endStatus().build();
    }

    TreeSet<String> run(Service s) {
        var out = new SourceOutput();
        source.translate(s, List.of(new NodeBuilder().withNewStatus().addNewAddress().withType("InternalIP").withAddress("10.0.0.1").endAddress().endStatus().build()),
                List.of(new EndpointSliceBuilder().addNewEndpoint().withAddresses("10.1.0.1").withNewConditions().withReady(true).endConditions().endEndpoint()
                        .addNewEndpoint().withAddresses("10.1.0.2").withNewConditions().withReady(false).endConditions().endEndpoint().build()), out);
        var lines = new TreeSet<String>();
        out.endpoints().forEach(e -> lines.add(e.dnsName() + " " + e.ttl() + " " + e.recordType() + " " + e.targets() + " " + e.resource()));
        out.problems().forEach(p -> lines.add("PROBLEM " + p.reason() + " " + p.message()));
        return lines;
    }

    @Test
    void nsmExposeWithSrvPort() {
        assertEquals(new TreeSet<>(List.of(
                "registry.nsm-system.nsm.example 0 A [203.0.113.1] service/nsm-system/registry",
                "registry.nsm-system.nsm.example 0 AAAA [2001:db8::1] service/nsm-system/registry",
                "registry.nsm-system.nsm.example 0 SRV [0 0 5002 registry.nsm-system.nsm.example] service/nsm-system/registry")),
                run(svc("LoadBalancer", Map.of("meshdns.io/expose", "true", "meshdns.io/srv-port", "grpc"), "10.96.0.1")));
    }

    @Test
    void hostnameAnnotationsBothPrefixesTtlAndTarget() {
        assertEquals(new TreeSet<>(List.of(
                "a.example 60 A [192.0.2.9] service/nsm-system/registry",
                "b.example 60 A [192.0.2.9] service/nsm-system/registry",
                "c.example 60 A [10.96.0.1] service/nsm-system/registry")),
                run(svc("LoadBalancer", Map.of("external-dns.alpha.kubernetes.io/hostname", "a.example, b.example",
                        "external-dns.kubernetes.io/ttl", "1m", "external-dns.kubernetes.io/target", "192.0.2.9",
                        "external-dns.kubernetes.io/internal-hostname", "c.example"), "10.96.0.1")));
    }

    @Test
    void nodePortHeadlessAndClusterIp() {
        var np = run(svc("NodePort", Map.of("external-dns.kubernetes.io/hostname", "np.example", "meshdns.io/srv-port", "5002"), "10.96.0.1"));
        assertEquals(new TreeSet<>(List.of("np.example 0 A [10.0.0.1] service/nsm-system/registry",
                "_grpc._tcp.np.example 0 SRV [0 50 30002 np.example] service/nsm-system/registry",
                "np.example 0 SRV [0 0 30002 np.example] service/nsm-system/registry")), np);
        assertEquals(new TreeSet<>(List.of("h.example 0 A [10.1.0.1] service/nsm-system/registry")),
                run(svc("ClusterIP", Map.of("external-dns.kubernetes.io/hostname", "h.example"), "None")));
        assertEquals(new TreeSet<>(), run(svc("ClusterIP", Map.of("external-dns.kubernetes.io/hostname", "c.example"), "10.96.0.1")),
                "ClusterIP needs meshdns.exposure.publish-cluster-ip");
        assertEquals(new TreeSet<>(), run(svc("LoadBalancer", Map.of(), "10.96.0.1")), "no annotation: not considered");
    }

    @Test
    void invalidAnnotationsAreProblemsButValidRecordsRemain() {
        var out = new SourceOutput();
        source.translate(svc("LoadBalancer", Map.of("meshdns.io/expose", "true", "meshdns.io/srv-port", "nope",
                "external-dns.kubernetes.io/ttl", "-5", "external-dns.kubernetes.io/target", "203.0.113.7,not_a host!"), "10.96.0.1"), List.of(), List.of(), out);
        assertEquals(3, out.problems().size(), out.problems().toString());
        assertTrue(out.problems().stream().allMatch(p -> p.reason().equals(Problem.INVALID_ANNOTATION) && p.uid().equals("u1")));
        assertEquals(List.of(Endpoint.of("registry.nsm-system.nsm.example", "A", 0, "203.0.113.7").withLabel(Endpoint.RESOURCE_LABEL, "service/nsm-system/registry")),
                out.endpoints());
        assertEquals(java.util.Set.of("service/nsm-system/registry"), out.toDesired().erroredResources());
    }
}
