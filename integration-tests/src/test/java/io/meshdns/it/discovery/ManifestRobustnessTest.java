package io.meshdns.it.discovery;

import io.meshdns.it.testing.Http;
import io.meshdns.testsupport.dns.LoopbackPorts;
import io.meshdns.testsupport.QuarkusJarProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The packaged discovery-service in manifest-only mode with a 400 KB file nested 200,000 deep beside a
 * good one: the good file is served, readiness is DOWN (the catalog misses a file), and once the bad
 * file is removed the poll loop (still alive) picks up an edit and readiness turns UP.
 */
class ManifestRobustnessTest {
    static final String TOKEN = "manifest-robustness-token";

    @TempDir
    Path dir;

    @Test
    void aDeepFileIsRejectedAloneReadinessSaysSoAndPollingGoesOn() throws Exception {
        Path east = Files.createDirectories(dir.resolve("east"));
        Files.writeString(east.resolve("good.yaml"), service("web", "10.96.0.10"));
        Files.writeString(east.resolve("deep.yaml"), "apiVersion: v1\nkind: Service\nmetadata: {name: deep, namespace: shop}\n"
                + "spec:\n  ports: " + "[".repeat(200_000) + "]".repeat(200_000) + "\n");
        int http = LoopbackPorts.pick();
        try (QuarkusJarProcess p = QuarkusJarProcess.module("discovery-service").jvmOptions("-Xss512k", "-Xmx192m")
                .properties(
                        "quarkus.http.host=127.0.0.1", "quarkus.http.port=" + http,
                        "meshdns.discovery.enabled-local-cluster=false", "meshdns.discovery.cluster-name=east",
                        "meshdns.discovery.manifest-dirs=" + dir, "meshdns.discovery.manifest-poll-interval=200ms",
                        "meshdns.discovery.shared-token=" + TOKEN, "meshdns.discovery.initial-sync-timeout=1s")
                .start()) {
            String base = "http://127.0.0.1:" + http;
            try {
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                        .until(() -> get(base + "/v1/snapshot").body().contains("10.96.0.10"));
                HttpResponse<String> ready = get(base + "/q/health/ready");
                assertEquals(503, ready.statusCode(), ready.body());
                assertTrue(ready.body().contains("discovery-manifests") && ready.body().contains("deep.yaml"), ready.body());

                Files.delete(east.resolve("deep.yaml"));
                Files.writeString(east.resolve("good.yaml"), service("web", "10.96.0.11"));
                await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                        .until(() -> get(base + "/v1/snapshot").body().contains("10.96.0.11"));
                await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                        .until(() -> get(base + "/q/health/ready").statusCode() == 200);
            } catch (Throwable e) {
                throw new AssertionError("discovery output:\n" + p.output(), e);
            }
        }
    }

    static String service(String name, String ip) {
        return "apiVersion: v1\nkind: Service\nmetadata: {name: " + name + ", namespace: shop}\nspec: {clusterIP: " + ip + "}\n";
    }

    static HttpResponse<String> get(String url) throws Exception {
        return Http.get(url, TOKEN, Duration.ofSeconds(5));
    }
}
