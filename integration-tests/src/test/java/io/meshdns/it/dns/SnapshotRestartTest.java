package io.meshdns.it.dns;

import io.meshdns.model.CatalogEntry;
import io.meshdns.model.CatalogSnapshot;
import io.meshdns.model.ClusterStatus;
import io.meshdns.model.ServiceType;
import io.meshdns.model.WireFormat;
import io.meshdns.testsupport.LogLines;
import io.meshdns.testsupport.QuarkusJarProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node restarted with its persisted catalog while discovery-service hangs: the discovery endpoint accepts TCP
 * and never replies. The node must serve the catalog from its snapshot file at once and let the feed catch up:
 * the listeners open before the feed's first connection is even made, the mesh name answers while that
 * connection is still unanswered, and readiness is up (a catalog is loaded). Order of events, not timings.
 */
class SnapshotRestartTest {
    private static final Duration START = Duration.ofSeconds(60);
    private static final String NAME = "web.shop.svc.cluster.local.";
    private static final String ADDRESS = "10.96.0.10";

    @TempDir
    Path tmp;

    @Test
    void servesThePersistedCatalogBeforeDiscoveryIsReachedAndWhileItHangs() throws Exception {
        Path snapshot = tmp.resolve("snapshot.json");
        Files.write(snapshot, WireFormat.encode(new CatalogSnapshot(CatalogSnapshot.FORMAT_VERSION, 42,
                List.of(new ClusterStatus("east", true, false, System.currentTimeMillis(), List.of())),
                List.of(new CatalogEntry.Service("east", "shop", "web", ServiceType.CLUSTER_IP, List.of(ADDRESS), null,
                        List.of(), List.of())))));
        AtomicReference<QuarkusJarProcess> node = new AtomicReference<>();
        /** What the node had printed when each discovery connection arrived. */
        List<String> outputAtConnect = new CopyOnWriteArrayList<>();
        List<Socket> held = new CopyOnWriteArrayList<>();
        try (ServerSocket blackhole = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        Socket s = blackhole.accept(); // kept open, never written to
                        QuarkusJarProcess p = node.get();
                        outputAtConnect.add(p == null ? "" : p.output());
                        held.add(s);
                    }
                } catch (Exception closed) {
                    // the test is over
                }
            }, "blackhole-discovery");
            acceptor.setDaemon(true);
            acceptor.start();
            try (QuarkusJarProcess p = start(snapshot, blackhole.getLocalPort(), node)) {
                int port = p.awaitPort(LogLines.DNS_SERVICE_PORT, START);
                assertEquals(List.of(ADDRESS), awaitAnswer(port, p), p.output());

                // The feed does connect (after the listeners), and its request stays unanswered.
                long deadline = System.nanoTime() + START.toNanos();
                while (held.isEmpty() && System.nanoTime() < deadline) Thread.sleep(20);
                assertFalse(held.isEmpty(), "dns-service never connected to discovery:\n" + p.output());
                Socket first = held.get(0);
                first.setSoTimeout(30_000);
                String requestLine = new BufferedReader(new InputStreamReader(first.getInputStream(), StandardCharsets.US_ASCII)).readLine();
                assertTrue(requestLine != null && requestLine.startsWith("GET /v1/snapshot"), "request: " + requestLine);
                assertTrue(outputAtConnect.get(0).contains("dns-service listening on"),
                        "the feed connected before the listeners opened:\n" + outputAtConnect.get(0));
                assertTrue(outputAtConnect.get(0).contains("serving the persisted catalog version 42"), outputAtConnect.get(0));

                // Still answering from the snapshot with the discovery request pending, and ready.
                assertEquals(List.of(ADDRESS), awaitAnswer(port, p), p.output());
                int http = p.awaitPort(LogLines.QUARKUS_HTTP_PORT, START);
                HttpResponse<String> ready = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + http + "/q/health/ready")).timeout(Duration.ofSeconds(10)).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(200, ready.statusCode(), ready.body());
                assertFalse(first.isClosed());
            } finally {
                for (Socket s : held) s.close();
            }
        }
    }

    private static QuarkusJarProcess start(Path snapshot, int discoveryPort, AtomicReference<QuarkusJarProcess> node) throws Exception {
        QuarkusJarProcess p = QuarkusJarProcess.module("dns-service").jvmOptions(QuarkusJarProcess.FAST_START_JVM)
                .property("quarkus.http.port", "0")
                .property("meshdns.dns.port", "0")
                .property("meshdns.dns.upstreams", "127.0.0.1:9")
                .property("meshdns.dns.discovery-url", "http://127.0.0.1:" + discoveryPort)
                .property("meshdns.dns.discovery-token", "t")
                .property("meshdns.dns.snapshot-file", snapshot.toString())
                .property("meshdns.dns.cluster-name", "east")
                .start();
        node.set(p);
        return p;
    }

    /** The A records for {@link #NAME}, asked over UDP until the answer is NOERROR (the listeners are open by now). */
    private static List<String> awaitAnswer(int port, QuarkusJarProcess p) throws Exception {
        SimpleResolver r = new SimpleResolver("127.0.0.1");
        r.setPort(port);
        r.setTimeout(Duration.ofSeconds(2));
        Message q = Message.newQuery(Record.newRecord(Name.fromString(NAME), Type.A, DClass.IN));
        long deadline = System.nanoTime() + START.toNanos();
        Message last = null;
        while (System.nanoTime() < deadline) {
            try {
                last = r.send(q);
                if (last.getRcode() == Rcode.NOERROR && !last.getSection(Section.ANSWER).isEmpty()) {
                    return last.getSection(Section.ANSWER).stream().map(rr -> ((ARecord) rr).getAddress().getHostAddress()).toList();
                }
            } catch (java.io.IOException timeout) {
                // asked again below
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no answer for " + NAME + " (last: " + last + "):\n" + p.output());
    }
}
