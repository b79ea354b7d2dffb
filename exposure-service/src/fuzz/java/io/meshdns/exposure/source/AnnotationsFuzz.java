package io.meshdns.exposure.source;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.IngressBuilder;
import io.meshdns.exposure.endpoint.Endpoint;
import org.xbill.DNS.Name;
import org.xbill.DNS.TextParseException;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Annotation maps → desired endpoints, through the Service and Ingress sources as the sync pass
 * calls them. The objects are what an API server accepts (valid IPs and names); the annotations are
 * anything: known keys under both prefixes and meshdns's own, with fuzzed or near-valid values, plus
 * fuzzed keys. Bad input may only become a {@link Problem}: any throwable is a finding, and so is
 * an endpoint that does not belong to the object or does not carry the TTL the annotation asked for.
 */
class AnnotationsFuzz {
    private static final String[] NAMES = {Annotations.HOSTNAME, Annotations.TTL, Annotations.TARGET,
            Annotations.INTERNAL_HOSTNAME, Annotations.CONTROLLER, Annotations.ACCESS, Annotations.ENDPOINTS_TYPE,
            Annotations.INGRESS_HOSTNAME_SOURCE, Annotations.RECORD_TYPE};
    private static final String[] OWN = {Annotations.EXPOSE, Annotations.SRV_PORT, Annotations.SHARED};
    /** Values near the valid ones, so the fuzzer reaches past each parser's first check. */
    private static final String[] VALUES = {"a.example", "a.example, b.example", "*.example", "a.example.", "192.0.2.9",
            "2001:db8::9", "::ffff:192.0.2.1", "lb.example.net", "60", "1m", "1h30m", "0", "2147483648", "5m0s",
            "true", "TRUE", "dns-controller", "public", "private", "NodeExternalIP", "HostIP", "ptr",
            "defined-hosts-only", "annotation-only", "http", "80", "30080", "", " ", ","};
    private static final String[] TYPES = {"LoadBalancer", "NodePort", "ClusterIP", "ExternalName", "headless"};
    private static final List<Node> NODES = List.of(
            new NodeBuilder().withNewMetadata().withName("n1").endMetadata().withNewStatus()
                    .addNewAddress().withType("InternalIP").withAddress("10.0.0.1").endAddress()
                    .addNewAddress().withType("ExternalIP").withAddress("198.51.100.1").endAddress().endStatus().build(),
            new NodeBuilder().withNewMetadata().withName("n2").endMetadata().withNewStatus()
                    .addNewAddress().withType("InternalIP").withAddress("fd00::2").endAddress().endStatus().build());
    private static final List<EndpointSlice> SLICES = List.of(new EndpointSliceBuilder()
            .addNewEndpoint().withAddresses("10.1.0.1").withNodeName("n1").withNewConditions().withReady(true).endConditions().endEndpoint()
            .addNewEndpoint().withAddresses("10.1.0.2").withNodeName("n2").endEndpoint().build());

    @FuzzTest(maxExecutions = 1_000_000, maxDuration = "25m")
    void annotations(FuzzedDataProvider data) {
        var settings = new SourceSettings(data.consumeBoolean() ? Optional.of("mesh.example") : Optional.empty(),
                data.consumeBoolean(), data.consumeBoolean() ? Optional.of("{{name}}.{{namespace}}.tpl.example") : Optional.empty());
        String type = data.pickValue(TYPES);
        Map<String, String> ann = new LinkedHashMap<>();
        int n = data.consumeInt(0, 8);
        for (int i = 0; i < n; i++) {
            String key = switch (data.consumeInt(0, 3)) {
                case 0 -> Annotations.PREFIX + data.pickValue(NAMES);
                case 1 -> Annotations.ALPHA_PREFIX + data.pickValue(NAMES);
                case 2 -> data.pickValue(OWN);
                default -> data.consumeString(40);
            };
            ann.put(key, data.consumeBoolean() ? data.pickValue(VALUES) : data.consumeString(300));
        }

        var out = new SourceOutput();
        Service svc = service(type, ann);
        new ServiceSource(settings).translate(svc, NODES, SLICES, out);
        check(out, 0, "service/web/shop", ann);

        int first = out.endpoints().size();
        new IngressSource().translate(ingress(ann), out);
        check(out, first, "ingress/web/shop", ann);
        out.toDesired();
    }

    private static void check(SourceOutput out, int first, String resource, Map<String, String> ann) {
        long ttl = Annotations.get(ann, Annotations.TTL).map(v -> {
            try {
                return Annotations.parseTtl(v);
            } catch (IllegalArgumentException e) {
                return 0L;
            }
        }).orElse(0L);
        for (Endpoint e : out.endpoints().subList(first, out.endpoints().size())) {
            if (!e.resource().equals(resource)) throw new AssertionError(e + " does not belong to " + resource);
            if (e.ttl() != ttl) throw new AssertionError(e + " has TTL " + e.ttl() + ", the annotation says " + ttl);
            // dnsjava as the oracle: every name a provider will be sent must be a DNS name (labels <= 63, <= 255 octets)
            try {
                Name.fromString(e.dnsName() + ".");
            } catch (TextParseException ex) {
                throw new AssertionError("not a DNS name: " + e + " (" + ex.getMessage() + ")");
            }
        }
    }

    private static Service service(String type, Map<String, String> ann) {
        boolean headless = type.equals("headless");
        return new ServiceBuilder().withNewMetadata().withNamespace("web").withName("shop").withUid("u1")
                .withAnnotations(ann).endMetadata()
                .withNewSpec().withType(headless ? "ClusterIP" : type).withClusterIP(headless ? "None" : "10.96.0.7")
                .withClusterIPs(headless ? List.of("None") : List.of("10.96.0.7", "fd00:96::7"))
                .withExternalName(type.equals("ExternalName") ? "shop.example.org" : null)
                .addNewPort().withName("http").withPort(80).withNodePort(type.equals("NodePort") ? 30080 : null).withProtocol("TCP").endPort()
                .addNewPort().withPort(443).withNodePort(type.equals("NodePort") ? 30443 : null).endPort()
                .endSpec()
                .withNewStatus().withNewLoadBalancer().addNewIngress().withIp("203.0.113.1").endIngress()
                .addNewIngress().withIp("2001:db8::1").endIngress().addNewIngress().withHostname("lb.example.net").endIngress()
                .endLoadBalancer().endStatus().build();
    }

    private static Ingress ingress(Map<String, String> ann) {
        return new IngressBuilder().withNewMetadata().withNamespace("web").withName("shop").withUid("u2")
                .withAnnotations(ann).endMetadata()
                .withNewSpec().addNewRule().withHost("shop.example").endRule().addNewTl().withHosts("tls.shop.example").endTl().endSpec()
                .withNewStatus().withNewLoadBalancer().addNewIngress().withIp("203.0.113.2").endIngress().endLoadBalancer().endStatus()
                .build();
    }
}
