package io.meshdns.exposure.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** ExternalDNS's --annotation-prefix: only the custom prefix is read, for every source, and the informer's object is left alone. */
class AnnotationPrefixTest {

    static final String OBJECTS = """
            apiVersion: networking.k8s.io/v1
            kind: Ingress
            metadata: {name: custom, namespace: web, annotations: {dns.example.com/hostname: custom.example.org, dns.example.com/ttl: "120"}}
            spec: {}
            status: {loadBalancer: {ingress: [{ip: 192.0.2.1}]}}
            ---
            apiVersion: networking.k8s.io/v1
            kind: Ingress
            metadata: {name: standard, namespace: web, annotations: {external-dns.kubernetes.io/hostname: standard.example.org}}
            spec: {}
            status: {loadBalancer: {ingress: [{ip: 192.0.2.2}]}}
            ---
            apiVersion: networking.k8s.io/v1
            kind: Ingress
            metadata: {name: other, namespace: web, annotations: {dns.example.com/hostname: other.example.org, dns.example.com/controller: someone}}
            spec: {}
            status: {loadBalancer: {ingress: [{ip: 192.0.2.3}]}}
            """;

    static Set<String> run(List<HasMetadata> objects, String prefix) {
        return run(objects, prefix, e -> e.dnsName() + " " + e.ttl() + " " + e.targets());
    }

    /** Each endpoint the ingress source makes of {@code objects} under {@code prefix}, as {@code line} prints it. */
    static Set<String> run(List<HasMetadata> objects, String prefix, java.util.function.Function<io.meshdns.exposure.endpoint.Endpoint, String> line) {
        var settings = new SourceSettings(Optional.empty(), false, Optional.empty(), List.of(), false, prefix);
        var out = new TreeSet<String>();
        new ObjectTranslation(settings, Set.of("ingress")).translate(objects).endpoints().forEach(e -> out.add(line.apply(e)));
        return out;
    }

    static List<HasMetadata> objects() {
        var out = new ArrayList<HasMetadata>();
        for (String doc : OBJECTS.split("(?m)^---\\s*$")) out.add((HasMetadata) new KubernetesSerialization().unmarshal(doc));
        return out;
    }

    @Test
    void onlyTheCustomPrefixIsRead() {
        var objects = objects();
        assertEquals(Set.of("custom.example.org 120 [192.0.2.1]"), run(objects, "dns.example.com/"));
        assertEquals(Set.of("standard.example.org 0 [192.0.2.2]"), run(objects, ""));
        assertEquals(Set.of("standard.example.org 0 [192.0.2.2]"), run(objects, "external-dns.kubernetes.io/"));
        assertTrue(objects.get(0).getMetadata().getAnnotations().containsKey("dns.example.com/hostname"), "the object read is not changed");
        assertEquals(2, objects.get(0).getMetadata().getAnnotations().size());
    }

    @Test
    void aBadPrefixFailsNamingTheKey() {
        for (String bad : List.of("dns.example.com", "Dns.example.com/", "/", "a b/")) {
            var e = assertThrows(IllegalArgumentException.class, () -> AnnotationPrefix.check(bad));
            assertTrue(e.getMessage().startsWith("meshdns.exposure.annotation-prefix: "), e.getMessage());
        }
        assertEquals("dns.example.com/", AnnotationPrefix.check("dns.example.com/"));
    }
    /** ExternalDNS's coredns-group annotation becomes the endpoints' coredns/group property, under the prefix in force. */
    @Test
    void theCorednsGroupAnnotationFollowsThePrefix() {
        String docs = """
                apiVersion: networking.k8s.io/v1
                kind: Ingress
                metadata: {name: std, namespace: web, annotations: {external-dns.kubernetes.io/hostname: std.example.org, external-dns.kubernetes.io/coredns-group: g1}}
                spec: {}
                status: {loadBalancer: {ingress: [{ip: 192.0.2.1}, {hostname: lb.example.net}]}}
                ---
                apiVersion: networking.k8s.io/v1
                kind: Ingress
                metadata: {name: custom, namespace: web, annotations: {dns.example.com/hostname: custom.example.org, dns.example.com/coredns-group: g2}}
                spec: {}
                status: {loadBalancer: {ingress: [{ip: 192.0.2.2}]}}
                ---
                apiVersion: networking.k8s.io/v1
                kind: Ingress
                metadata: {name: both, namespace: web, annotations: {external-dns.kubernetes.io/hostname: both.example.org, external-dns.kubernetes.io/coredns-group: new, external-dns.alpha.kubernetes.io/coredns-group: old}}
                spec: {}
                status: {loadBalancer: {ingress: [{ip: 192.0.2.3}]}}
                """;
        var objects = new ArrayList<HasMetadata>();
        for (String doc : docs.split("(?m)^---\\s*$")) objects.add((HasMetadata) new KubernetesSerialization().unmarshal(doc));
        assertEquals(Set.of("both.example.org A {coredns/group=new}", "std.example.org A {coredns/group=g1}"), groups(objects, ""));
        assertEquals(Set.of("custom.example.org A {coredns/group=g2}"), groups(objects, "dns.example.com/"));
    }

    static Set<String> groups(List<HasMetadata> objects, String prefix) {
        return run(objects, prefix, e -> e.dnsName() + " " + e.recordType() + " " + e.providerSpecific());
    }
}
