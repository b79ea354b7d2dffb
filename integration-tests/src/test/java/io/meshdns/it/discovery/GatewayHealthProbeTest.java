package io.meshdns.it.discovery;

import io.meshdns.it.testing.ServiceProcess;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The east-west gateway probe of a packaged discovery-service: cluster west's gateway stand-in is a loopback TCP
 * listener; stopped, /v1/status marks west's gateway down after the unhealthy threshold; started again, up after the
 * healthy threshold; east, not probed, carries no verdict.
 */
class GatewayHealthProbeTest {
    private static final String TOKEN = "gateway-token";

    @Test
    void aStoppedGatewayIsMarkedDownAndAStartedOneUp() throws Exception {
        Path dir = Files.createTempDirectory("meshdns-gateway-probe");
        Path clusters = dir.resolve("manifests");
        for (String c : new String[]{"east", "west"}) {
            Files.createDirectories(clusters.resolve(c));
            Files.writeString(clusters.resolve(c).resolve("ns.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n");
        }
        ServerSocket gateway = new ServerSocket();
        gateway.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        int port = gateway.getLocalPort();
        try (ServiceProcess discovery = new ServiceProcess("discovery", "discovery-service", dir)
                .property("meshdns.discovery.enabled-local-cluster", "false")
                .property("meshdns.discovery.cluster-name", "east")
                .property("meshdns.discovery.manifest-dirs", clusters.toString())
                .property("meshdns.discovery.vip-file", dir.resolve("vips.txt").toString())
                .property("meshdns.discovery.shared-token", TOKEN)
                .property("meshdns.discovery.cluster-health.gateways.west", "127.0.0.1:" + port)
                .property("meshdns.discovery.cluster-health.interval", "200ms")
                .property("meshdns.discovery.cluster-health.timeout", "200ms")
                .start()) {
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                    .until(() -> status(discovery).contains("\"name\":\"west\",\"local\":false,\"stale\":false"));
            await().atMost(Duration.ofSeconds(10)).until(() -> west(status(discovery)).contains("\"gatewayHealthy\":true"));
            assertTrue(!east(status(discovery)).contains("gatewayHealthy"), "east is not probed");

            gateway.close();
            long stopped = System.nanoTime();
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                    .until(() -> west(status(discovery)).contains("\"gatewayHealthy\":false"));
            System.out.printf("gateway down seen %.1f s after the stop (3 probes 200 ms apart)%n", (System.nanoTime() - stopped) / 1e9);

            gateway = new ServerSocket();
            gateway.setReuseAddress(true);
            gateway.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                    .until(() -> west(status(discovery)).contains("\"gatewayHealthy\":true"));
        } finally {
            gateway.close();
        }
    }

    private static String status(ServiceProcess discovery) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(discovery.httpUrl() + "/v1/status"))
                .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    private static String west(String status) {
        int i = status.indexOf("\"name\":\"west\"");
        return i < 0 ? "" : status.substring(i, status.indexOf('}', i));
    }

    private static String east(String status) {
        int i = status.indexOf("\"name\":\"east\"");
        return i < 0 ? "" : status.substring(i, status.indexOf('}', i));
    }
}
