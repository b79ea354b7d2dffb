package io.meshdns.exposure.source;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.IngressBuilder;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** Ingress: rule and TLS hosts plus the hostname annotation, pointing at the load balancer or the target annotation. */
class IngressSourceTest {

    static Ingress ingress(Map<String, String> ann, String lbIp, String lbHost) {
        return new IngressBuilder().withNewMetadata().withNamespace("web").withName("site").withAnnotations(ann).endMetadata()
                .withNewSpec().addNewRule().withHost("www.example.org").endRule()
                .addNewTl().withHosts("secure.example.org").endTl().endSpec()
                .withNewStatus().withNewLoadBalancer().addNewIngress().withIp(lbIp).withHostname(lbHost).endIngress()
                .endLoadBalancer().endStatus().build();
    }

    static TreeSet<String> run(Ingress i) {
        var out = new SourceOutput();
        new IngressSource().translate(i, out);
        return SourceLines.of(out);
    }

    @Test
    void rulesTlsAndAnnotationHostsToLoadBalancer() {
        assertEquals(new TreeSet<>(List.of(
                "extra.example.org 300 A [198.51.100.9] ingress/web/site",
                "secure.example.org 300 A [198.51.100.9] ingress/web/site",
                "www.example.org 300 A [198.51.100.9] ingress/web/site")),
                run(ingress(Map.of("external-dns.alpha.kubernetes.io/hostname", "extra.example.org",
                        "external-dns.alpha.kubernetes.io/ttl", "300"), "198.51.100.9", null)));
    }

    @Test
    void loadBalancerHostnameBecomesCnameAndTargetAnnotationOverrides() {
        assertEquals(new TreeSet<>(List.of(
                "secure.example.org 0 CNAME [lb-1.elb.example.com] ingress/web/site",
                "www.example.org 0 CNAME [lb-1.elb.example.com] ingress/web/site")),
                run(ingress(Map.of(), null, "LB-1.elb.example.com.")));
        assertEquals(new TreeSet<>(List.of(
                "secure.example.org 0 AAAA [2001:db8::5] ingress/web/site",
                "www.example.org 0 AAAA [2001:db8::5] ingress/web/site")),
                run(ingress(Map.of("external-dns.kubernetes.io/target", "2001:db8:0::5"), "198.51.100.9", null)));
    }

    @Test
    void ingressHostnameSourceAndController() {
        assertEquals(new TreeSet<>(List.of("secure.example.org 0 A [198.51.100.9] ingress/web/site", "www.example.org 0 A [198.51.100.9] ingress/web/site")),
                run(ingress(Map.of("external-dns.kubernetes.io/hostname", "extra.example.org",
                        "external-dns.kubernetes.io/ingress-hostname-source", "defined-hosts-only"), "198.51.100.9", null)));
        assertEquals(new TreeSet<>(List.of("extra.example.org 0 A [198.51.100.9] ingress/web/site")),
                run(ingress(Map.of("external-dns.kubernetes.io/hostname", "extra.example.org",
                        "external-dns.kubernetes.io/ingress-hostname-source", "annotation-only"), "198.51.100.9", null)));
        assertEquals(new TreeSet<String>(), run(ingress(Map.of("external-dns.kubernetes.io/controller", "other"), "198.51.100.9", null)));
    }
}
