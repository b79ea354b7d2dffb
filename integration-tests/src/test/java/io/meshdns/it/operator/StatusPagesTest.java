package io.meshdns.it.operator;

import io.meshdns.testsupport.QuarkusJarProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.Lookup;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each service's status page, loaded in headless Chromium (Debian's) against the three running services: the DOM
 * Chromium built is checked for what an operator looks for, and a screenshot of each page is kept under
 * {@code integration-tests/target/status-pages/}.
 */
class StatusPagesTest {
    static final Path SCREENSHOTS = QuarkusJarProcess.repositoryRoot().resolve("integration-tests/target/status-pages");

    @TempDir
    static Path state;
    static RunningServices services;

    @BeforeAll
    static void start() throws Exception {
        services = new RunningServices(state);
        SimpleResolver resolver = services.dnsResolver();
        try {
            // the node follows the catalog, and exposure has published its Service into dns-service's dynamic zone
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).until(() ->
                    resolves(resolver, "reviews.shop.svc.cluster.local.", Type.A) && resolves(resolver, "registry.nsm-system." + RunningServices.DOMAIN + ".", Type.SRV));
        } catch (Throwable e) {
            throw new AssertionError(services.outputs(), e);
        }
        resolves(resolver, "www.example.invalid.", Type.A); // one forwarded query: the upstream row
        // A second Service wanting the registry's name: one of the two wins, the other is a conflict of every pass.
        var twin = new io.fabric8.kubernetes.api.model.ServiceBuilder()
                .withNewMetadata().withName("registry-twin").withNamespace("nsm-system")
                .addToAnnotations("external-dns.alpha.kubernetes.io/hostname", "registry.nsm-system." + RunningServices.DOMAIN).endMetadata()
                .withNewSpec().withType("LoadBalancer").addNewPort().withName("http").withPort(80).withProtocol("TCP").endPort().endSpec()
                .withNewStatus().withNewLoadBalancer().addNewIngress().withIp("203.0.113.11").endIngress().endLoadBalancer().endStatus()
                .build();
        services.client.services().inNamespace("nsm-system").resource(twin).create();
        services.client.services().inNamespace("nsm-system").resource(twin).updateStatus();
        Files.createDirectories(SCREENSHOTS);
    }

    @AfterAll
    static void stop() {
        if (services != null) services.close();
    }

    /**
     * DNS rebinding: a page on an attacker's name, re-pointed at this machine, sends that name as {@code Host}. Every
     * service's port refuses it before any route runs, and still answers the names a browser or a node really uses.
     */
    @Test
    void aRebindingHostIsRefusedOnEveryPort() throws Exception {
        for (int port : new int[]{services.dnsHttp, services.discoveryHttp, services.exposureHttp}) {
            RawResponse refused = rawGet(InetAddress.getLoopbackAddress(), port, "/status", "rebind.attacker.example", null);
            assertEquals(403, refused.status, port + ": " + refused);
            assertTrue(refused.body.contains("meshdns.http.allowed-hosts"), refused.toString());
            assertEquals(403, rawGet(InetAddress.getLoopbackAddress(), port, "/q/metrics", "rebind.attacker.example:" + port, null).status);
            for (String host : List.of("localhost:" + port, "127.0.0.1:" + port, "meshdns-discovery.meshdns.svc:" + port)) {
                RawResponse ok = rawGet(InetAddress.getLoopbackAddress(), port, "/status", host, null);
                assertEquals(200, ok.status, port + " " + host + ": " + ok);
            }
        }
    }

    /**
     * The discovery page names every cluster, node and ServiceEntry host: it takes the stream's token, except on this
     * machine's own loopback address (where {@code kubectl port-forward} arrives). 127.0.0.2 is another caller.
     */
    @Test
    void discoveryStatusPageTakesTheStreamsTokenBeyondLoopback() throws Exception {
        InetAddress other = InetAddress.getByName("127.0.0.2");
        assertEquals(401, rawGet(other, services.discoveryHttp, "/status", "127.0.0.1", null).status);
        assertEquals(401, rawGet(other, services.discoveryHttp, "/", "127.0.0.1", null).status);
        RawResponse withToken = rawGet(other, services.discoveryHttp, "/status", "127.0.0.1", RunningServices.TOKEN);
        assertEquals(200, withToken.status, withToken.toString());
        assertTrue(withToken.body.contains("<h1>meshdns discovery-service</h1>"), withToken.toString());
        assertEquals(401, rawGet(InetAddress.getLoopbackAddress(), services.discoveryHttp, "/v1/status", "127.0.0.1", null).status,
                "the API itself always takes the token");
    }

    private record RawResponse(int status, String body) {
    }

    /** One HTTP/1.1 GET from a socket bound to {@code from}, with the Host header as given. */
    private static RawResponse rawGet(InetAddress from, int port, String path, String host, String token) throws IOException {
        try (java.net.Socket socket = new java.net.Socket()) {
            socket.bind(new java.net.InetSocketAddress(from, 0));
            socket.connect(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
            socket.setSoTimeout(10_000);
            String request = "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n"
                    + (token == null ? "" : "Authorization: Bearer " + token + "\r\n") + "\r\n";
            socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int status = Integer.parseInt(response.substring(9, 12));
            int bodyStart = response.indexOf("\r\n\r\n");
            return new RawResponse(status, bodyStart < 0 ? "" : response.substring(bodyStart + 4));
        }
    }

    /** Every service's pages come with the headers that keep a browser from sniffing, framing or loading anything. */
    @Test
    void everyPageCarriesTheSecurityHeaders() throws Exception {
        for (int port : new int[]{services.dnsHttp, services.discoveryHttp, services.exposureHttp}) {
            java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(
                    java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + "/status"))
                            .timeout(java.time.Duration.ofSeconds(20)).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), "port " + port);
            assertEquals("nosniff", r.headers().firstValue("X-Content-Type-Options").orElse(""), "port " + port);
            String csp = r.headers().firstValue("Content-Security-Policy").orElse("");
            assertTrue(csp.contains("default-src 'none'") && csp.contains("frame-ancestors 'none'"), "port " + port + ": " + csp);
        }
    }

    @Test
    void dnsServicePage() throws Exception {
        String dom = chromium("dns-service", "http://127.0.0.1:" + services.dnsHttp + "/status");
        assertContains(dom, "<h1>meshdns dns-service</h1>");
        assertMatches(dom, "<th>version</th><td>[1-9]\\d*</td>");
        assertMatches(dom, "<th>published</th><td>[0-9.]+ (s|min) ago");
        assertContains(dom, "<td>mesh.example.</td>");
        assertContains(dom, "<td>cluster.local.</td>");
        assertContains(dom, "<td>" + RunningServices.DOMAIN + ".</td>");
        assertContains(dom, "zone-file:");
        assertContains(dom, "<th>connection</th><td>connected</td>");
        assertContains(dom, "<th>feed</th><td>discovery:http://127.0.0.1:" + services.discoveryHttp + "</td>");
        assertMatches(dom, "<th>answer memo entries</th><td>\\d+</td>");
        assertMatches(dom, "<th>forwarding cache entries</th><td>\\d+ answers, \\d+ denials</td>");
        assertContains(dom, "<td>127.0.0.1:9</td>");
    }

    @Test
    void discoveryServicePage() throws Exception {
        String dom = chromium("discovery-service", "http://127.0.0.1:" + services.discoveryHttp + "/status");
        assertContains(dom, "<h1>meshdns discovery-service</h1>");
        assertContains(dom, "<th>ready</th><td>yes</td>");
        assertMatches(dom, "<tr><td>east</td><td>local</td><td>fresh</td><td>[0-9.]+ (s|min) ago</td><td>[^<]*service[^<]*</td>");
        assertMatches(dom, "<tr><td>west</td><td>remote</td><td>fresh</td>");
        // the dns-service node's watch stream, up to date
        assertMatches(dom, "<tr><td>/?127\\.0\\.0\\.1:\\d+</td><td>[^<]*</td><td>[0-9.]+ (s|min) ago</td><td>\\d+</td><td>up to date</td><td>ok</td></tr>");
        assertMatches(dom, "<tr><td>legacy.service.entry</td><td>west/shop/legacy</td><td></td><td>240\\.240\\.\\d+\\.\\d+(, [0-9a-f:]+)?</td><td>meshdns</td></tr>");
        assertContains(dom, "<tr><td>api.payments.example</td>");
        assertContains(dom, "ServiceEntry addresses");
    }

    @Test
    void discoveryStatusApiMarksTheLocalCluster() throws Exception {
        String json = RunningServices.get("http://127.0.0.1:" + services.discoveryHttp + "/v1/status",
                Map.of("Authorization", "Bearer " + RunningServices.TOKEN));
        assertMatches(json, "\\{\"name\":\"east\",\"local\":true");
        assertMatches(json, "\\{\"name\":\"west\",\"local\":false");
    }

    @Test
    void exposureServicePage() throws Exception {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).until(() -> {
            String html = RunningServices.get("http://127.0.0.1:" + services.exposureHttp + "/status");
            return html.contains("<td>SRV</td>") && html.contains("wanted by several resources");
        });
        String dom = chromium("exposure-service", "http://127.0.0.1:" + services.exposureHttp + "/status");
        assertContains(dom, "<h1>meshdns exposure-service</h1>");
        assertContains(dom, "<th>meshdns.exposure.owner-id</th><td>operator-test</td>");
        assertContains(dom, "<th>meshdns.exposure.provider</th><td>builtin</td>");
        assertContains(dom, "<th>leader</th><td>yes</td>");
        assertMatches(dom, "<th>last completed pass</th><td>[0-9.]+ (s|min) ago</td>");
        assertContains(dom, "<th>failed passes</th><td>0</td>");
        assertMatches(dom, "<tr><td>A</td><td>[1-9]\\d*</td></tr>");
        assertMatches(dom, "<tr><td>SRV</td><td>[1-9]\\d*</td></tr>");
        assertMatches(dom, "<tr><td>create</td><td>[1-9]\\d*</td></tr>");
        // the pass's own report: its plan (or the last one that changed something), and the name in conflict
        assertMatches(dom, "<th>result</th><td>ok \\(1 target\\)</td>");
        assertMatches(dom, "<th>owned records</th><td>[1-9]\\d*</td>");
        assertMatches(dom, "<td>CREATE registry\\.nsm-system\\." + RunningServices.DOMAIN.replace(".", "\\.") + " [^<]*SRV");
        assertMatches(dom, "<td>plan</td><td>registry\\.nsm-system\\." + RunningServices.DOMAIN.replace(".", "\\.")
                + "/A: wanted by several resources, [^<]+ wins</td>");
        assertMatches(dom, "<td>object</td><td>Conflict Service nsm-system/registry(-twin)?: [^<]*not published: also wanted by");
    }

    private static void assertContains(String dom, String expected) {
        assertTrue(dom.contains(expected), "expected " + expected + " in\n" + dom);
    }

    private static void assertMatches(String dom, String regex) {
        assertTrue(Pattern.compile(regex).matcher(dom).find(), "expected /" + regex + "/ in\n" + dom);
    }

    /** The DOM as headless Chromium built it, and a screenshot of the page as {@code <name>.png}. */
    private static String chromium(String name, String url) throws Exception {
        String dom = run(List.of("--dump-dom", url), null);
        assertFalse(dom.contains("<script"), "a status page needs no script");
        Path png = SCREENSHOTS.resolve(name + ".png");
        Files.deleteIfExists(png);
        run(List.of("--screenshot=" + png, "--window-size=1200,900", url), null);
        assertTrue(Files.size(png) > 5_000, "screenshot " + png);
        return dom;
    }

    private static String run(List<String> args, Void unused) throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory(state, "chromium-profile");
        List<String> command = new ArrayList<>(List.of("/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic",
                "--user-data-dir=" + profile));
        command.addAll(args);
        Path out = state.resolve("chromium-" + System.nanoTime() + ".out");
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("chromium did not finish within 60 s: " + command);
        }
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    private static boolean resolves(SimpleResolver resolver, String name, int type) throws Exception {
        Lookup l = new Lookup(name, type);
        l.setResolver(resolver);
        l.setCache(null);
        l.run();
        return l.getResult() == Lookup.SUCCESSFUL;
    }
}
