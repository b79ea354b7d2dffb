package io.meshdns.exposure.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.meshdns.exposure.source.AbstractSource;
import io.meshdns.exposure.source.DnsEndpointSource;
import io.meshdns.exposure.source.ObjectTranslation;
import io.meshdns.exposure.source.Problem;
import io.meshdns.exposure.source.ServiceSource;
import io.meshdns.exposure.source.Source;
import io.meshdns.exposure.source.SourceContext;
import io.meshdns.exposure.source.SourceFilter;
import io.meshdns.exposure.source.SourceFilterConfig;
import io.meshdns.exposure.source.SourceNames;
import io.meshdns.exposure.source.SourceOutput;
import io.meshdns.exposure.source.SourceSettings;
import io.meshdns.exposure.source.WatchedKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Source seam: a source is one class; the translation reads the kinds it declares, hands it its objects one
 * at a time (from manifests here, from informers in the cluster), and contains what it throws. Nothing in sync/
 * knows the kinds.
 */
class SourceSeamTest {

    @TempDir
    Path dir;

    static final SourceSettings SETTINGS = new SourceSettings(Optional.empty(), false, Optional.empty());

    /** A source defined only here: {@code example.io/v1 Greeting} with spec.host and spec.ip → A. */
    static final class GreetingSource extends AbstractSource {
        static final WatchedKind GREETINGS = WatchedKind.custom("example.io", "v1", "Greeting", "greetings");

        GreetingSource() {
            super("greeting", GREETINGS, ServiceSource.NODES);
        }

        @Override
        public void translate(HasMetadata object, SourceContext context, SourceOutput out) {
            var spec = (Map<?, ?>) ((GenericKubernetesResource) object).getAdditionalProperties().get("spec");
            if (spec.get("host").toString().startsWith("boom")) throw new IllegalStateException("boom");
            out.addTargets(spec.get("host").toString(), List.of(spec.get("ip").toString(),
                            "198.51.100." + context.objects(ServiceSource.NODES).size()), 0,
                    SourceNames.resourceKey("Greeting", object.getMetadata().getNamespace(), object.getMetadata().getName()));
        }
    }

    static String greeting(String name, String host, String ip) {
        return """
                apiVersion: example.io/v1
                kind: Greeting
                metadata: {name: %s, namespace: shop}
                spec: {host: %s, ip: %s}
                ---
                """.formatted(name, host, ip);
    }

    static final String NODE = """
            apiVersion: v1
            kind: Node
            metadata: {name: n1}
            ---
            """;

    @Test
    void aNewSourceIsOneClassReadFromManifestsWithItsContextKindsAndContained() throws Exception {
        Files.writeString(dir.resolve("g.yaml"), greeting("hello", "hello.mesh.example", "203.0.113.1") + NODE
                + greeting("broken", "boom.mesh.example", "203.0.113.2")
                // the same kind in another group is not this source's
                + """
                apiVersion: other.io/v1
                kind: Greeting
                metadata: {name: stranger, namespace: shop}
                spec: {host: stranger.mesh.example, ip: 203.0.113.3}
                """);
        var available = new ArrayList<Source>(ObjectTranslation.builtIn());
        available.add(new GreetingSource());
        var translation = new ObjectTranslation(available, SETTINGS, Set.of("greeting"));
        assertEquals(List.of("greeting"), translation.names());
        assertEquals(List.of("Greeting", "Node"), translation.kinds().stream().map(WatchedKind::kind).toList());

        SourceOutput out = new ManifestSources(List.of(dir), translation).collect();

        var published = new TreeSet<String>();
        out.endpoints().forEach(e -> published.add(e.dnsName() + " " + e.recordType() + " " + e.targets()));
        assertEquals(Set.of("hello.mesh.example A [198.51.100.1, 203.0.113.1]"), published);
        assertEquals(1, out.problems().size(), out.problems().toString());
        assertEquals("greeting/shop/broken", out.problems().get(0).resourceKey());
        assertEquals(Problem.INVALID, out.problems().get(0).reason());
        assertTrue(out.problems().get(0).message().contains("source greeting"), out.problems().get(0).message());
    }

    @Test
    void onlyEnabledSourcesTranslateAndOnlyTheirKindsAreRead() {
        var translation = new ObjectTranslation(SETTINGS, Set.of("crd"));
        assertEquals(List.of("crd"), translation.names());
        assertEquals(List.of(DnsEndpointSource.DNS_ENDPOINTS), translation.kinds());
        var all = new ObjectTranslation(SETTINGS, Set.of("service", "ingress", "crd"));
        assertEquals(List.of("crd", "ingress", "service"), all.names());
        assertEquals(Set.of("DNSEndpoint", "Ingress", "Service", "Node", "EndpointSlice"),
                Set.copyOf(all.kinds().stream().map(WatchedKind::kind).toList()));
    }

    static String ingress(String ns, String name, String labels, String annotations) {
        return """
                apiVersion: networking.k8s.io/v1
                kind: Ingress
                metadata: {name: %2$s, namespace: %1$s, labels: {%3$s}, annotations: {%4$s}}
                spec: {rules: [{host: %2$s.%1$s.mesh.example}]}
                status: {loadBalancer: {ingress: [{ip: 203.0.113.9}]}}
                ---
                """.formatted(ns, name, labels, annotations);
    }

    static SourceFilterConfig filterConfig(String namespace, String labels, String annotations) {
        return new SourceFilterConfig() {
            public Optional<String> namespace() {
                return Optional.ofNullable(namespace);
            }

            public Optional<String> labelFilter() {
                return Optional.ofNullable(labels);
            }

            public Optional<String> annotationFilter() {
                return Optional.ofNullable(annotations);
            }
        };
    }

    Set<String> published(SourceFilterConfig config) throws Exception {
        Files.writeString(dir.resolve("i.yaml"), ingress("shop", "a", "dns: public", "") + ingress("shop", "b", "dns: private", "")
                + ingress("team", "c", "dns: public", "external-dns.alpha.kubernetes.io/ttl: \"60\", team: x"));
        var translation = new ObjectTranslation(ObjectTranslation.builtIn(), SETTINGS, Set.of("ingress"), SourceFilter.of(config));
        var out = new TreeSet<String>();
        new ManifestSources(List.of(dir), translation).collect().endpoints().forEach(e -> out.add(e.dnsName()));
        return out;
    }

    @Test
    void namespaceLabelAndAnnotationFiltersChooseTheSourceObjects() throws Exception {
        assertEquals(Set.of("a.shop.mesh.example", "b.shop.mesh.example", "c.team.mesh.example"), published(filterConfig(null, null, null)));
        assertEquals(Set.of("a.shop.mesh.example", "b.shop.mesh.example"), published(filterConfig("shop", null, null)));
        assertEquals(Set.of("a.shop.mesh.example", "c.team.mesh.example"), published(filterConfig(null, "dns=public", null)));
        assertEquals(Set.of("b.shop.mesh.example"), published(filterConfig(null, "dns!=public", null)));
        assertEquals(Set.of("c.team.mesh.example"), published(filterConfig(null, "dns=public", "team=x")));
        assertEquals(Set.of("a.shop.mesh.example", "b.shop.mesh.example"), published(filterConfig(null, null, "!team")));
        var e = assertThrows(IllegalArgumentException.class, () -> SourceFilter.of(filterConfig(null, "a=b,=c", null)));
        assertTrue(e.getMessage().startsWith("meshdns.exposure.label-filter: "), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> SourceFilter.of(filterConfig(null, null, "x y")));
        assertTrue(e.getMessage().startsWith("meshdns.exposure.annotation-filter: "), e.getMessage());
    }

    @Test
    void twoSourcesOfOneNameAreRefused() {
        var e = assertThrows(IllegalStateException.class,
                () -> ObjectTranslation.byName(List.of(new GreetingSource(), new GreetingSource())));
        assertTrue(e.getMessage().contains("greeting"), e.getMessage());
    }
}
