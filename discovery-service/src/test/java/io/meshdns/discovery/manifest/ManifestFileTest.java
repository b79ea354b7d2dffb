package io.meshdns.discovery.manifest;

import io.fabric8.kubernetes.api.model.Service;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One file's bytes → objects or a rejection: the pure parse path the file source and ManifestFileFuzz use. */
class ManifestFileTest {

    private static ManifestFile.Result parse(String content) {
        return ManifestFile.parse(content.getBytes(StandardCharsets.UTF_8), ManifestFile.Limits.DEFAULT);
    }

    /**
     * A "billion laughs" file: levels of 7 aliases each to the level before. With 8 levels (49 aliases,
     * under the YAML parser's own limit of 50; 427 bytes) it stands for 7^7 x 8, some 6.6 million
     * strings: fabric8's conversion to objects did not finish in 120 s (a 347-byte one of 6 levels not
     * in 100 s). It is refused from the node graph, where aliases are shared.
     */
    static String aliasBomb(int levels) {
        StringBuilder sb = new StringBuilder("apiVersion: example.io/v1\nkind: Thing\nmetadata: {name: x}\n");
        sb.append("l0: &l0 [").append("\"xxxxxxxx\",".repeat(7)).append("x]\n");
        for (int i = 1; i < levels; i++) {
            sb.append("l").append(i).append(": &l").append(i).append(" [").append(("*l" + (i - 1) + ",").repeat(7)).append("x]\n");
        }
        return sb.toString();
    }

    @Test
    void aliasesThatExpandBeyondTheSizeLimitAreRefusedWithoutExpandingThem() {
        String bomb = aliasBomb(8);
        assertTrue(bomb.length() < 500, bomb.length() + " bytes");
        ManifestFile.Result r = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> parse(bomb));
        String why = assertInstanceOf(ManifestFile.Rejected.class, r).reason();
        assertTrue(why.contains("aliases expand beyond") && why.contains("meshdns.discovery.manifest.max-file-size"), why);
    }

    @Test
    void anAliasThatContainsItselfIsRefused() {
        ManifestFile.Result r = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> parse("""
                apiVersion: example.io/v1
                kind: Thing
                metadata: {name: x}
                loop: &loop [a, *loop]
                """));
        assertInstanceOf(ManifestFile.Rejected.class, r, r.toString());
    }

    @Test
    void aFewAliasesAreStillReadAsKubernetesReadsThem() {
        ManifestFile.Result r = parse("""
                apiVersion: v1
                kind: Service
                metadata:
                  name: web
                  namespace: shop
                  labels: &labels {app: web, tier: front}
                  annotations: *labels
                spec: {clusterIP: 10.96.0.10, ports: [{name: http, port: 80}]}
                """);
        Service svc = (Service) assertInstanceOf(ManifestFile.Loaded.class, r, r.toString()).objects().get(0);
        assertEquals("front", svc.getMetadata().getAnnotations().get("tier"));
    }

    @Test
    void contentThatIsNotYamlOrJsonIsRejectedWithOneLine() {
        for (String bad : new String[] {"a: [", "{\"kind\": ", "kind: Service\nmetadata: {name: [unclosed\n", "x: 'open\n"}) {
            String why = assertInstanceOf(ManifestFile.Rejected.class, parse(bad), bad).reason();
            assertTrue(!why.isBlank() && why.lines().count() == 1, bad + " → " + why);
        }
    }

    @Test
    void depthIsMeasuredOnBlockAndFlowNestingButNotInsideStringsOrComments() {
        assertEquals(3, ManifestFile.nestingDepth("a:\n  b:\n    c: 1\n", 100));
        assertEquals(4, ManifestFile.nestingDepth("a: [[{x: 1}]]\n", 100));
        assertEquals(1, ManifestFile.nestingDepth("a: \"[[[[\" # {{{{\nb: '[[[['\n", 100));
        assertEquals(4, ManifestFile.nestingDepth("- - - a\n", 100));
        assertTrue(ManifestFile.nestingDepth("[".repeat(1000), 64) > 64);
    }
}
