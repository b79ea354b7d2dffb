package io.meshdns.it.discovery;

import io.meshdns.testsupport.LogLines;
import io.meshdns.it.testing.RawHttp;
import io.meshdns.testsupport.QuarkusJarProcess;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The connection cap holds on discovery's and edge's plain HTTP port as on dns-service's: 700 connections that send
 * nothing, against a process with 1,024 descriptors and a cap of 64. With clear-text HTTP/2 on, Vert.x held each
 * such connection outside the cap while it waited for the first bytes to tell HTTP/1 from h2c, so every one took a
 * descriptor until the idle timeout; with h2c off (HTTP/2 stays on over TLS, by ALPN) a connection over the cap is
 * closed at once.
 */
class DiscoveryHttpLimitsTest {
    private static final int DESCRIPTORS = 1024;
    private static final int FLOOD = 700;
    private static final int CAP = 64;
    private static final String TOKEN = "limits-token";

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"discovery-service", "edge"})
    void idleConnectionsOverTheCapAreNotHeld(String module) throws Exception {
        try (QuarkusJarProcess p = QuarkusJarProcess.module(module).jvmOptions(QuarkusJarProcess.FAST_START_JVM)
                .commandPrefix("prlimit", "--nofile=" + DESCRIPTORS + ":" + DESCRIPTORS, "--")
                .properties("quarkus.http.host=127.0.0.1", "quarkus.http.port=0",
                        "quarkus.http.limits.max-connections=" + CAP, "quarkus.http.idle-timeout=30s",
                        "meshdns.discovery.enabled-local-cluster=false", "meshdns.discovery.cluster-name=east",
                        "meshdns.discovery.manifest-dirs=" + QuarkusJarProcess.repositoryRoot().resolve("examples/clusters"),
                        "meshdns.discovery.shared-token=" + TOKEN, "meshdns.discovery.initial-sync-timeout=1s",
                        "meshdns.dns.port=0", "meshdns.dns.upstreams=127.0.0.1:9")
                .start()) {
            int http = p.awaitPort(LogLines.QUARKUS_HTTP_PORT, Duration.ofSeconds(90));
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                    .until(() -> RawHttp.status(http, "/q/health/live") == 200);
            int before = openDescriptors(p.pid());
            List<Socket> flood = new ArrayList<>();
            try {
                for (int i = 0; i < FLOOD; i++) {
                    Socket s = new Socket();
                    try {
                        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), http), 2_000);
                    } catch (IOException e) {
                        // refused: the port is full, which is the point
                    }
                    flood.add(s);
                }
                Thread.sleep(1_000); // let the server accept, count and close what is over the cap
                int held = openDescriptors(p.pid()) - before;
                System.out.printf("%s: %d descriptors before the flood, %d more with %d idle connections held%n", module, before, held, FLOOD);
                assertTrue(held <= CAP + 16, module + " holds " + held + " more descriptors after " + FLOOD
                        + " idle connections (cap " + CAP + ")");
            } finally {
                for (Socket s : flood) s.close();
            }
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                    .until(() -> RawHttp.status(http, "/q/health/live") == 200);
        }
    }

    private static int openDescriptors(long pid) throws IOException {
        try (var files = Files.list(Path.of("/proc", String.valueOf(pid), "fd"))) {
            return (int) files.count();
        }
    }
}
