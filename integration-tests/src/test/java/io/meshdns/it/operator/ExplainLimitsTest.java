package io.meshdns.it.operator;

import io.meshdns.testsupport.LogLines;
import io.meshdns.testsupport.QuarkusJarProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code /v1/explain} held to the DNS listeners' standard, on a packaged dns-service that admits only
 * 127.0.0.2 ({@code meshdns.dns.allowed-clients}): every request comes from a socket bound to a chosen loopback
 * address. Before these limits a client the DNS ACL drops resolved any name through the endpoint (an open
 * resolver), asked as any pod with {@code client=}, and an AXFR held a worker for 10 s.
 */
class ExplainLimitsTest {
    private static final String TOKEN = "explain-secret";
    private static final InetAddress ALLOWED = address("127.0.0.2");
    private static final InetAddress DROPPED = address("127.0.0.1");
    static QuarkusJarProcess dns;
    static int http;
    /** An upstream that never answers: a forwarded explain waits for the forwarder's timeout. */
    static DatagramSocket silentUpstream;

    @BeforeAll
    static void start() throws Exception {
        silentUpstream = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        dns = QuarkusJarProcess.module("dns-service").jvmOptions(QuarkusJarProcess.FAST_START_JVM)
                .property("quarkus.http.host", "127.0.0.1").property("quarkus.http.port", "0")
                .property("meshdns.dns.port", "0")
                .property("meshdns.dns.allowed-clients", "127.0.0.2/32")
                .property("meshdns.dns.zone-files", QuarkusJarProcess.repositoryRoot().resolve("examples/zones/mesh.example.zone").toString())
                .property("meshdns.dns.upstreams", "127.0.0.1:" + silentUpstream.getLocalPort())
                .property("meshdns.dns.explain.token", TOKEN)
                .property("meshdns.dns.explain.max-concurrent", "1")
                .start();
        http = dns.awaitPort(LogLines.QUARKUS_HTTP_PORT, Duration.ofSeconds(90));
        dns.awaitPort(LogLines.DNS_SERVICE_PORT, Duration.ofSeconds(90));
    }

    @AfterAll
    static void stop() {
        if (dns != null) dns.close();
        if (silentUpstream != null) silentUpstream.close();
    }

    @Test
    void aClientTheDnsAclDropsIsRefused() throws IOException {
        Response r = get(DROPPED, "/v1/explain?name=random-4711.example.org&type=A", null);
        assertEquals(403, r.status, r.body);
        assertTrue(r.body.contains("allowed-clients"), r.body);
    }

    @Test
    void anAdmittedClientIsAnsweredAsItself() throws IOException {
        Response r = get(ALLOWED, "/v1/explain?name=registry.mesh.example&type=A", null);
        assertEquals(200, r.status, r.body);
        assertTrue(r.body.contains("\"client\":\"127.0.0.2\""), r.body);
    }

    @Test
    void askingAsAnotherClientTakesTheOperatorToken() throws IOException {
        Response anonymous = get(ALLOWED, "/v1/explain?name=registry.mesh.example&type=A&client=10.244.1.50", null);
        assertEquals(403, anonymous.status, anonymous.body);
        Response wrong = get(ALLOWED, "/v1/explain?name=registry.mesh.example&type=A&client=10.244.1.50", "not-the-token");
        assertEquals(403, wrong.status, wrong.body);
        Response operator = get(ALLOWED, "/v1/explain?name=registry.mesh.example&type=A&client=10.244.1.50", TOKEN);
        assertEquals(200, operator.status, operator.body);
        assertTrue(operator.body.contains("\"client\":\"10.244.1.50\""), operator.body);
    }

    @Test
    void zoneTransfersAreRefusedAtOnce() throws IOException {
        for (String type : List.of("AXFR", "IXFR")) {
            long started = System.nanoTime();
            Response r = get(ALLOWED, "/v1/explain?name=mesh.example&type=" + type, null);
            long millis = (System.nanoTime() - started) / 1_000_000;
            assertEquals(400, r.status, r.body);
            assertTrue(r.body.contains("zone transfers"), r.body);
            assertTrue(millis < 2_000, type + " took " + millis + " ms");
        }
    }

    @Test
    void explainsBeyondTheCapGet429() throws Exception {
        // Each explain of a forwarded name waits on the silent upstream; with max-concurrent=1, of three at once at
        // least one is turned away instead of queueing on a worker.
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Future<Response>> answers = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                String name = "slow-" + i + ".forwarded.example";
                answers.add(pool.submit(() -> get(ALLOWED, "/v1/explain?name=" + name + "&type=A", null)));
            }
            List<Integer> statuses = new ArrayList<>();
            for (Future<Response> f : answers) statuses.add(f.get().status);
            assertTrue(statuses.contains(429), statuses.toString());
            assertTrue(statuses.contains(200), statuses.toString());
        } finally {
            pool.shutdownNow();
        }
    }

    private record Response(int status, String body) {
    }

    /** A plain HTTP/1.1 GET from a socket bound to {@code from}, bounded in time. */
    private static Response get(InetAddress from, String path, String token) throws IOException {
        try (Socket s = new Socket()) {
            s.bind(new InetSocketAddress(from, 0));
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), http), 5_000);
            s.setSoTimeout(20_000);
            String request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + http + "\r\nConnection: close\r\n"
                    + (token == null ? "" : "Authorization: Bearer " + token + "\r\n") + "\r\n";
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            String whole = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            int status = Integer.parseInt(whole.substring(9, 12));
            int body = whole.indexOf("\r\n\r\n");
            return new Response(status, body < 0 ? "" : whole.substring(body + 4));
        }
    }

    private static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
