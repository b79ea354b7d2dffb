package io.meshdns.exposure.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.meshdns.exposure.source.DnsEndpointSource;
import io.meshdns.exposure.source.ObjectTranslation;
import io.meshdns.exposure.source.Problem;
import io.meshdns.exposure.source.ServiceSource;
import io.meshdns.exposure.source.Source;
import io.meshdns.exposure.source.SourceContext;
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
    static final class GreetingSource implements Source {
        static final WatchedKind GREETINGS = WatchedKind.custom("example.io", "v1", "Greeting", "greetings");

        @Override
        public String name() {
            return "greeting";
        }

        @Override
        public WatchedKind kind() {
            return GREETINGS;
        }

        @Override
        public List<WatchedKind> context() {
            return List.of(ServiceSource.NODES);
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

    @Test
    void twoSourcesOfOneNameAreRefused() {
        var e = assertThrows(IllegalStateException.class,
                () -> ObjectTranslation.byName(List.of(new GreetingSource(), new GreetingSource())));
        assertTrue(e.getMessage().contains("greeting"), e.getMessage());
    }
}
