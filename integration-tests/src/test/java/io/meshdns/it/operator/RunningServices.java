package io.meshdns.it.operator;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.meshdns.it.testing.BuiltinExposure;
import io.meshdns.testsupport.LogLines;
import io.meshdns.testsupport.QuarkusJarProcess;
import org.xbill.DNS.SimpleResolver;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The three packaged services as an operator runs them, on loopback: discovery-service on the bundled
 * two-cluster example (examples/clusters), dns-service following it as a node of "east" with a dynamic zone,
 * and exposure-service watching a fabric8 CRUD Kubernetes API and publishing one NSM-style Service into that
 * zone through the builtin provider. Each HTTP port is the one the service picked itself (port 0, read from its log).
 */
final class RunningServices implements AutoCloseable {
    static final String TOKEN = "operator-token";
    /** dns-service's {@code meshdns.dns.explain.token}: explain as another client ({@code client=}). */
    static final String EXPLAIN_TOKEN = "explain-operator-token";
    static final String SECRET = "b3BlcmF0b3Itc3VyZmFjZXMtc2VjcmV0LTAxMjM0NTY3";
    static final String DOMAIN = "mesh.it";

    final KubernetesMockServer kubernetes;
    final NamespacedKubernetesClient client;
    final QuarkusJarProcess discovery;
    final QuarkusJarProcess dns;
    final QuarkusJarProcess exposure;
    final int discoveryHttp;
    final int dnsHttp;
    final int dnsPort;
    final int exposureHttp;

    RunningServices(Path state) throws Exception {
        this(state, "127.0.0.1:9");
    }

    /** {@code upstreams}: dns-service's {@code meshdns.dns.upstreams} (by default a port nothing answers on). */
    RunningServices(Path state, String upstreams) throws Exception {
        kubernetes = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
        kubernetes.init(InetAddress.getLoopbackAddress(), 0);
        client = kubernetes.createClient();
        discovery = start("discovery-service", Map.of(
                "meshdns.discovery.enabled-local-cluster", "false",
                "meshdns.discovery.cluster-name", "east",
                "meshdns.discovery.manifest-dirs", QuarkusJarProcess.repositoryRoot().resolve("examples/clusters") + ","
                        + QuarkusJarProcess.repositoryRoot().resolve("integration-tests/src/test/resources/operator/explain-clusters"),
                "meshdns.discovery.shared-token", TOKEN,
                "meshdns.discovery.vip-file", state.resolve("vips.txt").toString()));
        discoveryHttp = discovery.awaitPort(LogLines.QUARKUS_HTTP_PORT, Duration.ofSeconds(90));
        dns = start("dns-service", Map.ofEntries(
                Map.entry("meshdns.dns.port", "0"),
                Map.entry("meshdns.dns.upstreams", upstreams),
                Map.entry("meshdns.dns.zone-files", QuarkusJarProcess.repositoryRoot().resolve("examples/zones/mesh.example.zone").toString()),
                Map.entry("meshdns.dns.discovery-url", "http://127.0.0.1:" + discoveryHttp),
                Map.entry("meshdns.dns.discovery-token", TOKEN),
                Map.entry("meshdns.dns.cluster-name", "east"),
                Map.entry("meshdns.dns.placeholder.enabled", "true"),
                Map.entry("meshdns.dns.autopath.enabled", "true"),
                Map.entry("meshdns.dns.placeholder.ipv4", "1.1.1.2"),
                Map.entry("meshdns.dns.placeholder.service-entry-suffixes", "service.entry"),
                Map.entry("meshdns.dns.dynamic-zones", DOMAIN),
                Map.entry("meshdns.dns.tsig-keys", "exposure:hmac-sha256:" + SECRET),
                Map.entry("meshdns.dns.journal-dir", state.resolve("journal").toString()),
                Map.entry("meshdns.dns.explain.token", EXPLAIN_TOKEN)));
        dnsPort = dns.awaitPort(LogLines.DNS_SERVICE_PORT, Duration.ofSeconds(90));
        dnsHttp = dns.awaitPort(LogLines.QUARKUS_HTTP_PORT, Duration.ofSeconds(30));
        exposure = start("exposure-service", BuiltinExposure.properties("operator-test", dnsPort, DOMAIN, SECRET, kubernetes.url("/")));
        exposureHttp = exposure.awaitPort(LogLines.QUARKUS_HTTP_PORT, Duration.ofSeconds(90));
        Service registry = BuiltinExposure.nsmRegistry("203.0.113.10");
        client.services().inNamespace("nsm-system").resource(registry).create();
        client.services().inNamespace("nsm-system").resource(registry).updateStatus();
    }

    private static QuarkusJarProcess start(String module, Map<String, String> properties) throws IOException {
        return QuarkusJarProcess.module(module).jvmOptions(QuarkusJarProcess.FAST_START_JVM).properties(properties)
                .property("quarkus.http.host", "127.0.0.1").property("quarkus.http.port", "0")
                .stopGrace(Duration.ofSeconds(15)).start();
    }

    static String get(String url) throws IOException, InterruptedException {
        return get(url, Map.of());
    }

    static String get(String url, Map<String, String> headers) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20));
        headers.forEach(b::header);
        HttpResponse<String> r = HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new AssertionError("GET " + url + ": " + r.statusCode() + "\n" + r.body());
        }
        return r.body();
    }

    /** A resolver asking dns-service on its DNS port (3 s timeout). */
    SimpleResolver dnsResolver() {
        SimpleResolver resolver = new SimpleResolver(InetAddress.getLoopbackAddress());
        resolver.setPort(dnsPort);
        resolver.setTimeout(Duration.ofSeconds(3));
        return resolver;
    }

    String outputs() {
        return "--- discovery-service\n" + discovery.output() + "\n--- dns-service\n" + dns.output() + "\n--- exposure-service\n" + exposure.output();
    }

    @Override
    public void close() {
        for (QuarkusJarProcess p : new QuarkusJarProcess[]{exposure, dns, discovery}) {
            if (p != null) p.close();
        }
        client.close();
        kubernetes.destroy();
    }
}
