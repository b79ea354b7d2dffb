package io.meshdns.it.discovery;

import io.meshdns.it.testing.Dns;
import io.meshdns.testsupport.Commands;
import io.meshdns.testsupport.QuarkusJarProcess;
import io.meshdns.testsupport.TestPki;
import io.meshdns.testsupport.dns.LoopbackPorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The discovery stream over TLS, packaged jars on loopback, certificates made by openssl: discovery-service serves
 * HTTPS only (a certificate naming {@code discovery.test}, not the address dns-service connects to) and requires
 * a client certificate; three dns-services follow it:
 * <ul>
 * <li>A: the right CA, {@code server-name}, a client certificate: answers the mesh name, and a name added after the
 * server certificate was rotated on disk (discovery reloads it, no restart: a new handshake sees the new serial);</li>
 * <li>B: another CA: the handshake fails, its log says so and names the keys, and it never answers the name;</li>
 * <li>C: the right CA, no client certificate: refused (403), never answers the name.</li>
 * </ul>
 */
class DiscoveryTlsTest {
    static final String TOKEN = "tls-token";
    static final String SERVER_NAME = "discovery.test";
    static final Pattern SERIAL = Pattern.compile("serial=([0-9A-F]+)");

    @TempDir
    Path dir;

    @Test
    void theStreamIsTlsVerifiedMutualAndFollowsARotatedCertificate() throws Exception {
        Path pkiDir = dir.resolve("pki");
        TestPki serverCa = TestPki.ca(pkiDir, "server");
        TestPki clientCa = TestPki.ca(pkiDir, "client");
        TestPki otherCa = TestPki.ca(pkiDir, "other");
        Path[] server = serverCa.issue("discovery", SERVER_NAME);
        Path[] node = clientCa.issue("node", "node-a");
        String firstSerial = TestPki.serial(server[0]);

        Path east = Files.createDirectories(dir.resolve("manifests/east"));
        service(east, "web", "10.96.7.7");
        int discoveryPort = LoopbackPorts.pick();
        String url = "https://127.0.0.1:" + discoveryPort;
        try (QuarkusJarProcess discovery = QuarkusJarProcess.module("discovery-service").jvmOptions(QuarkusJarProcess.FAST_START_JVM)
                .properties("quarkus.http.host=127.0.0.1", "quarkus.http.ssl-port=" + discoveryPort, "quarkus.http.port=0",
                        "quarkus.http.insecure-requests=disabled",
                        "quarkus.tls.key-store.pem.0.cert=" + server[0], "quarkus.tls.key-store.pem.0.key=" + server[1],
                        "quarkus.tls.trust-store.pem.certs=" + clientCa.caCert(), "quarkus.tls.reload-period=1s",
                        "meshdns.discovery.tls.require-client-certificate=true",
                        "meshdns.discovery.enabled-local-cluster=false", "meshdns.discovery.cluster-name=east",
                        "meshdns.discovery.manifest-dirs=" + east.getParent(), "meshdns.discovery.manifest-poll-interval=100ms",
                        "meshdns.discovery.vip-file=" + dir.resolve("vips.txt"), "meshdns.discovery.shared-token=" + TOKEN)
                .start();
             QuarkusJarProcess a = node("a", url, "meshdns.dns.discovery.tls.ca-file=" + serverCa.caCert(),
                     "meshdns.dns.discovery.tls.server-name=" + SERVER_NAME,
                     "meshdns.dns.discovery.tls.cert-file=" + node[0], "meshdns.dns.discovery.tls.key-file=" + node[1]);
             QuarkusJarProcess b = node("b", url, "meshdns.dns.discovery.tls.ca-file=" + otherCa.caCert(),
                     "meshdns.dns.discovery.tls.server-name=" + SERVER_NAME,
                     "meshdns.dns.discovery.tls.cert-file=" + node[0], "meshdns.dns.discovery.tls.key-file=" + node[1]);
             QuarkusJarProcess c = node("c", url, "meshdns.dns.discovery.tls.ca-file=" + serverCa.caCert(),
                     "meshdns.dns.discovery.tls.server-name=" + SERVER_NAME)) {
            try {
                // "serving" at start, or "reloaded" when the first reload period ends before the start event is observed
                discovery.awaitLine(Pattern.compile("TLS certificate (serving|reloaded): .*serial " + firstSerial), Duration.ofSeconds(120));
                Dns nodeA = new Dns(dnsPort(a));
                Dns nodeB = new Dns(dnsPort(b));
                Dns nodeC = new Dns(dnsPort(c));
                await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                        .until(() -> nodeA.a("web.shop.svc.cluster.local").equals(List.of("10.96.7.7")));

                // The JDK's reason (not only Vert.x's "Failed to create SSL connection") and the keys to check.
                b.awaitLine(Pattern.compile("discovery " + Pattern.quote(url) + ": TLS handshake failed \\(.*(PKIX|certification path|unable to find).*"
                        + "meshdns\\.dns\\.discovery\\.tls\\.ca-file"), Duration.ofSeconds(60));
                c.awaitLine(Pattern.compile("HTTP 403 client certificate required"), Duration.ofSeconds(60));
                // Without the catalog the name is forwarded (to a port nothing answers on): a timeout is as good an
                // answer as SERVFAIL here; what must never come back is the mesh record.
                assertNotEquals(List.of("10.96.7.7"), answerOrNone(nodeB, "web.shop.svc.cluster.local"), "B trusts another CA");
                assertNotEquals(List.of("10.96.7.7"), answerOrNone(nodeC, "web.shop.svc.cluster.local"), "C has no client certificate");
                // No plain-text fallback: the same port speaks TLS only.
                assertFalse(plainHttpAnswers(discoveryPort), "plain HTTP on the TLS port");

                // Rotation: a new key and certificate replace the files; discovery rereads them within its period.
                Path[] rotated = serverCa.issue("discovery", SERVER_NAME);
                String secondSerial = TestPki.serial(rotated[0]);
                assertNotEquals(firstSerial, secondSerial);
                discovery.awaitLine(Pattern.compile("TLS certificate reloaded: .*serial " + secondSerial), Duration.ofSeconds(60));
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                        // s_client can come back without a certificate while the listener swaps its TLS context on a
                        // loaded machine: ask again rather than fail on one empty read.
                        .ignoreExceptions()
                        .until(() -> secondSerial.equals(servedSerial(discoveryPort)));
                service(east, "cart", "10.96.7.8");
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                        .until(() -> nodeA.a("cart.shop.svc.cluster.local").equals(List.of("10.96.7.8")));
                assertTrue(discovery.isAlive(), "no restart");
                assertEquals(List.of("10.96.7.7"), nodeA.a("web.shop.svc.cluster.local"));
                // Every feed line names the URL it used ("discovery <url> ..."); the node's own HTTP listener's
                // "Listening on: http://" line is not the feed.
                assertFalse(b.output().contains("discovery http://"), "B never tried plain HTTP");
            } catch (Throwable e) {
                throw new AssertionError("discovery:\n" + SlowNodeCutOffTest.tail(discovery.output()) + "\nA:\n" + SlowNodeCutOffTest.tail(a.output())
                        + "\nB:\n" + SlowNodeCutOffTest.tail(b.output()) + "\nC:\n" + SlowNodeCutOffTest.tail(c.output()), e);
            }
        }
    }

    private QuarkusJarProcess node(String name, String url, String... tls) throws Exception {
        List<String> props = new java.util.ArrayList<>(List.of("quarkus.http.host=127.0.0.1", "quarkus.http.port=0", "meshdns.dns.port=0",
                "meshdns.dns.upstreams=127.0.0.1:9", "meshdns.dns.cluster-name=east", "meshdns.dns.discovery-url=" + url,
                "meshdns.dns.discovery-token=" + TOKEN, "meshdns.dns.discovery.backoff-max=1s"));
        props.addAll(List.of(tls));
        return QuarkusJarProcess.module("dns-service").jvmOptions(QuarkusJarProcess.FAST_START_JVM).properties(props).start();
    }

    private static int dnsPort(QuarkusJarProcess dns) throws InterruptedException {
        return dns.awaitPort(Pattern.compile("dns-service listening on \\S+ port (\\d+)"), Duration.ofSeconds(120));
    }

    static void service(Path dir, String name, String ip) throws Exception {
        Path tmp = dir.getParent().resolve(name + ".tmp");
        Files.writeString(tmp, "apiVersion: v1\nkind: Service\nmetadata: {name: " + name + ", namespace: shop}\n"
                + "spec:\n  clusterIP: " + ip + "\n  ports:\n  - {name: http, port: 80, protocol: TCP}\n");
        Files.move(tmp, dir.resolve(name + ".yaml"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    /** The serial of the certificate a fresh handshake (openssl s_client, asking for the server name) is shown. */
    static String servedSerial(int port) throws Exception {
        String out = Commands.run(Duration.ofSeconds(20), "bash", "-c", "openssl s_client -connect 127.0.0.1:" + port
                + " -servername " + SERVER_NAME + " </dev/null 2>/dev/null | openssl x509 -noout -serial");
        var m = SERIAL.matcher(out);
        return m.find() ? TestPki.hex(m.group(1)) : "";
    }

    /** Whether a plain-text HTTP request on the TLS port gets an HTTP answer (it must not). */
    static boolean plainHttpAnswers(int port) {
        try (var s = new java.net.Socket("127.0.0.1", port)) {
            s.setSoTimeout(3000);
            s.getOutputStream().write(("GET /v1/snapshot HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TOKEN + "\r\n\r\n").getBytes());
            byte[] buf = new byte[64];
            int n = s.getInputStream().read(buf);
            return n > 0 && new String(buf, 0, n).startsWith("HTTP/1.1 200");
        } catch (Exception e) {
            return false;
        }
    }

    private static List<String> answerOrNone(Dns node, String name) {
        try {
            return node.a(name);
        } catch (java.io.UncheckedIOException timedOut) {
            return List.of();
        }
    }
}
