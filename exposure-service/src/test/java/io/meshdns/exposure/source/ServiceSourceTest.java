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
        return SourceLines.of(out);
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
                // as ExternalDNS: the target annotation applies to internal-hostname names too
                "c.example 60 A [192.0.2.9] service/nsm-system/registry")),
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

    /** Found by AnnotationsFuzz: ".." normalized to the root and was published there; ".a" kept an empty label. */
    @Test
    void hostnamesWithEmptyOrOverlongLabelsAreProblemsNotRecords() {
        String long64 = "a".repeat(64) + ".example";
        for (String bad : List.of("..", ".", ".a.example", long64)) {
            var out = new SourceOutput();
            source.translate(svc("LoadBalancer", Map.of("external-dns.kubernetes.io/hostname", bad + ",ok.example"), "10.96.0.1"),
                    List.of(), List.of(), out);
            assertEquals(1, out.problems().size(), bad + ": " + out.problems());
            assertTrue(out.problems().get(0).message().startsWith("hostname '" + bad + "'"), out.problems().toString());
            assertEquals(java.util.Set.of("ok.example"), out.endpoints().stream().map(Endpoint::dnsName).collect(java.util.stream.Collectors.toSet()),
                    bad + ": " + out.endpoints());
        }
        // the root stays a valid target: SRV "no such service" (RFC 2782), null MX (RFC 7505), a CNAME a zone may hold
        assertEquals("0 0 0 .", Endpoint.normalizeTarget("SRV", "0 0 0 ."));
        assertEquals("0 .", Endpoint.normalizeTarget("MX", "0 ."));
        assertEquals(".", Endpoint.normalizeTarget("CNAME", "."));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> Endpoint.normalizeHostName(".."));
        assertEquals("a".repeat(63) + ".example", Endpoint.normalizeTarget("CNAME", "A".repeat(63) + ".example."), "63 octets is a label");
    }

    static io.fabric8.kubernetes.api.model.Node node(String name, String internal, String external) {
        var b = new NodeBuilder().withNewMetadata().withName(name).endMetadata().withNewStatus()
                .addNewAddress().withType("InternalIP").withAddress(internal).endAddress();
        if (external != null) b = b.addNewAddress().withType("ExternalIP").withAddress(external).endAddress();
        return b.endStatus().build();
    }

    TreeSet<String> runWith(Service s, List<io.fabric8.kubernetes.api.model.Node> nodes) {
        var out = new SourceOutput();
        source.translate(s, nodes, List.of(new EndpointSliceBuilder()
                .addNewEndpoint().withAddresses("10.1.0.1").withNodeName("n1").withNewConditions().withReady(true).endConditions().endEndpoint()
                .addNewEndpoint().withAddresses("10.1.0.2").withNodeName("n2").withNewConditions().withReady(false).endConditions().endEndpoint()
                .build()), out);
        var lines = new TreeSet<String>();
        out.endpoints().forEach(e -> lines.add(e.dnsName() + " " + e.recordType() + " " + e.targets()
                + (e.providerSpecific().isEmpty() ? "" : " " + e.providerSpecific())));
        return lines;
    }

    @Test
    void externalDnsAnnotationsControllerAccessEndpointsTypePtrAndShared() {
        var nodes = List.of(node("n1", "10.0.0.1", "192.0.2.1"), node("n2", "10.0.0.2", null));
        // controller: another controller's object is skipped, dns-controller's is published
        assertEquals(new TreeSet<String>(), runWith(svc("LoadBalancer", Map.of("external-dns.kubernetes.io/hostname", "x.example",
                "external-dns.kubernetes.io/controller", "someone-else"), "10.96.0.1"), nodes));
        assertEquals(new TreeSet<>(List.of("x.example A [203.0.113.1]", "x.example AAAA [2001:db8::1]")),
                runWith(svc("LoadBalancer", Map.of("external-dns.kubernetes.io/hostname", "x.example",
                        "external-dns.kubernetes.io/controller", "dns-controller"), "10.96.0.1"), nodes));
        // access on NodePort: public = ExternalIPs only, private = InternalIPs only, unset = ExternalIP else InternalIP
        assertTrue(runWith(svc("NodePort", Map.of("external-dns.kubernetes.io/hostname", "np.example",
                "external-dns.kubernetes.io/access", "public"), "10.96.0.1"), nodes).contains("np.example A [192.0.2.1]"));
        assertTrue(runWith(svc("NodePort", Map.of("external-dns.kubernetes.io/hostname", "np.example",
                "external-dns.kubernetes.io/access", "private"), "10.96.0.1"), nodes).contains("np.example A [10.0.0.1, 10.0.0.2]"));
        assertTrue(runWith(svc("NodePort", Map.of("external-dns.kubernetes.io/hostname", "np.example"), "10.96.0.1"), nodes)
                .contains("np.example A [10.0.0.2, 192.0.2.1]"));
        // endpoints-type on a headless Service: the nodes of the ready endpoints
        assertEquals(new TreeSet<>(List.of("h.example A [192.0.2.1]")), runWith(svc("ClusterIP", Map.of("external-dns.kubernetes.io/hostname", "h.example",
                "external-dns.kubernetes.io/endpoints-type", "NodeExternalIP"), "None"), nodes));
        assertEquals(new TreeSet<>(List.of("h.example A [10.0.0.1]")), runWith(svc("ClusterIP", Map.of("external-dns.kubernetes.io/hostname", "h.example",
                "external-dns.kubernetes.io/endpoints-type", "HostIP"), "None"), nodes));
        assertEquals(new TreeSet<>(List.of("h.example A [10.1.0.1]")), runWith(svc("ClusterIP", Map.of("external-dns.kubernetes.io/hostname", "h.example"), "None"), nodes));
        // record-type: ptr adds the reverse records; meshdns.io/shared marks the RRsets shared
        assertEquals(new TreeSet<>(List.of("p.example A [203.0.113.1] {meshdns.io/shared=true}", "p.example AAAA [2001:db8::1] {meshdns.io/shared=true}",
                        "1.113.0.203.in-addr.arpa PTR [p.example]",
                        "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa PTR [p.example]")),
                runWith(svc("LoadBalancer", Map.of("external-dns.kubernetes.io/hostname", "p.example",
                        "external-dns.kubernetes.io/record-type", "ptr", "meshdns.io/shared", "true"), "10.96.0.1"), nodes));
    }
}
