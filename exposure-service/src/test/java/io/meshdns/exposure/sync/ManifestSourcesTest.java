package io.meshdns.exposure.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.meshdns.exposure.source.Problem;
import io.meshdns.exposure.source.SourceOutput;
import io.meshdns.exposure.source.SourceSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ManifestSourcesTest {

    @TempDir
    Path dir;

    /** A LoadBalancer Service in namespace shop, published at {@code <name>.mesh.example}, with one status ingress. */
    static String loadBalancer(String name, String ingress) {
        return """
                apiVersion: v1
                kind: Service
                metadata:
                  name: %1$s
                  namespace: shop
                  annotations:
                    external-dns.alpha.kubernetes.io/hostname: %1$s.mesh.example
                spec:
                  type: LoadBalancer
                  ports: [{port: 80}]
                status:
                  loadBalancer:
                    ingress: [%2$s]
                """.formatted(name, ingress);
    }

    /**
     * A LoadBalancer whose status names a host no record can point at (the API server would refuse it;
     * a manifest or an older cluster may still carry it) throws deep in translation. That object must
     * become a problem on itself, so the plan keeps its current records, while its neighbours publish.
     */
    @Test
    void anObjectWhoseTranslationThrowsIsAProblemOfItsOwnAndTheOthersStillPublish() throws Exception {
        Files.writeString(dir.resolve("services.yaml"), loadBalancer("broken", "{hostname: \"lb..bad\"}")
                + "---\n" + loadBalancer("web", "{ip: 203.0.113.7}"));
        var sources = new ManifestSources(List.of(dir), new SourceSettings(Optional.empty(), false, Optional.empty()), Set.of("service"));

        SourceOutput out = sources.collect();

        var published = new TreeSet<String>();
        out.endpoints().forEach(e -> published.add(e.dnsName() + " " + e.recordType() + " " + e.targets()));
        assertEquals(Set.of("web.mesh.example A [203.0.113.7]"), published);
        assertEquals(1, out.problems().size(), "one problem, on the broken Service: " + out.problems());
        Problem p = out.problems().get(0);
        assertEquals("service/shop/broken", p.resourceKey());
        assertEquals(Problem.INVALID, p.reason());
        assertTrue(p.message().contains("lb..bad"), p.message());
        assertTrue(out.toDesired().erroredResources().contains("service/shop/broken"), "its current records are kept");
    }
}
