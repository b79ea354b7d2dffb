package io.meshdns.it.dns;

import io.meshdns.testsupport.LogLines;
import io.meshdns.testsupport.QuarkusJarProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * dns-service as an operator runs it: the packaged jar in its own process. Bad configuration must
 * stop it with a non-zero exit and a message naming the key (one process per kind of check: listener
 * keys and zone files; the other keys' messages are unit-tested in ServerSettingsTest); an IPv6 bind address must work; the
 * demo zone must answer what ./bin/demo promises.
 */
class DnsServiceProcessTest {
    private static final Duration START = Duration.ofSeconds(60);

    @TempDir
    static Path tmp;

    static Stream<Arguments> badConfigs() throws IOException {
        Path broken = tmp.resolve("broken.zone");
        Files.writeString(broken, "$ORIGIN x.test.\n@ 60 IN SOA ns admin 1 2 3 4 5\nwww 60 IN A 300.1.1.1\n");
        return Stream.of(
                Arguments.of(List.of("meshdns.dns.allowed-clients=10.0.0.0/99"), "meshdns.dns.allowed-clients", "10.0.0.0/99"),
                Arguments.of(List.of("meshdns.dns.port=70000"), "meshdns.dns.port", "70000"),
                Arguments.of(List.of("meshdns.dns.port=0", "meshdns.dns.zone-files=" + broken), "meshdns.dns.zone-files", broken + ":3"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("badConfigs")
    void invalidConfigurationFailsTheStartNamingTheKey(List<String> properties, String key, String detail) throws Exception {
        try (QuarkusJarProcess p = startDnsService(properties.toArray(String[]::new))) {
            int exit = p.awaitExit(START);
            assertNotEquals(0, exit, p.output());
            assertTrue(p.output().contains("meshdns: invalid configuration: " + key + "="), "names " + key + ":\n" + p.output());
            assertTrue(p.output().contains(detail), "shows " + detail + ":\n" + p.output());
        }
    }

    @Test
    void servesOverIpv6Loopback() throws Exception {
        assumeIpv6();
        try (QuarkusJarProcess p = startDnsService("meshdns.dns.bind-address=::1", "meshdns.dns.port=0",
                "meshdns.dns.zone-files=examples/zones/mesh.example.zone")) {
            int port = p.awaitPort(LogLines.DNS_SERVICE_PORT, START);
            assertRegistryAnsweredOverUdpAndTcp("::1", port);
        }
    }

    /** The dig lines ./bin/demo prints, against the bundled example zone. */
    @Test
    void theDemoZoneAnswersWhatTheDemoPromises() throws Exception {
        try (QuarkusJarProcess p = startDnsService("meshdns.dns.port=0",
                "meshdns.dns.zone-files=examples/zones/mesh.example.zone")) {
            int port = p.awaitPort(LogLines.DNS_SERVICE_PORT, START);
            String a = dig("127.0.0.1", port, "registry.mesh.example", "A");
            assertTrue(a.contains("status: NOERROR") && a.contains("192.0.2.10"), a);
            String srv = dig("127.0.0.1", port, "_registry._tcp.mesh.example", "SRV");
            assertTrue(srv.contains("5002 registry.mesh.example.") && srv.contains("ADDITIONAL SECTION"), srv);
            String cname = dig("127.0.0.1", port, "www.mesh.example");
            assertTrue(cname.contains("CNAME") && cname.contains("192.0.2.10"), cname);
            String nx = dig("127.0.0.1", port, "nope.mesh.example");
            assertTrue(nx.contains("status: NXDOMAIN") && nx.contains("SOA"), nx);
            String wild = dig("127.0.0.1", port, "anything.apps.mesh.example");
            assertTrue(wild.contains("192.0.2.99"), wild);
            String tcp = dig("127.0.0.1", port, "+tcp", "registry.mesh.example", "AAAA");
            assertTrue(tcp.contains("2001:db8::10"), tcp);
        }
    }

    /**
     * Repeated identical questions are answered by the UDP fast path (the memo of encoded answers, on in a
     * default start); every answer must still show in coredns_dns_requests_total and _responses_total.
     */
    @Test
    void fastPathAnswersAreCounted() throws Exception {
        int http = io.meshdns.testsupport.dns.LoopbackPorts.pick();
        try (QuarkusJarProcess p = startDnsService("meshdns.dns.port=0", "quarkus.http.port=" + http,
                "meshdns.dns.zone-files=examples/zones/mesh.example.zone")) {
            int port = p.awaitPort(LogLines.DNS_SERVICE_PORT, START);
            org.xbill.DNS.SimpleResolver resolver = new org.xbill.DNS.SimpleResolver("127.0.0.1");
            resolver.setPort(port);
            org.xbill.DNS.Message query = org.xbill.DNS.Message.newQuery(org.xbill.DNS.Record.newRecord(
                    org.xbill.DNS.Name.fromString("registry.mesh.example."), org.xbill.DNS.Type.A, org.xbill.DNS.DClass.IN));
            for (int i = 0; i < 25; i++) {
                assertEquals(org.xbill.DNS.Rcode.NOERROR, resolver.send(query).getRcode());
            }
            java.net.http.HttpResponse<String> metrics = java.net.http.HttpClient.newHttpClient().send(
                    java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + http + "/q/metrics")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            double requests = 0;
            double responses = 0;
            for (String line : metrics.body().split("\n")) {
                if (line.startsWith("coredns_dns_requests_total{") && line.contains("proto=\"udp\"") && line.contains("type=\"A\"")
                        && line.contains("zone=\"mesh.example.\"")) {
                    requests += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                }
                if (line.startsWith("coredns_dns_responses_total{") && line.contains("rcode=\"NOERROR\"") && line.contains("zone=\"mesh.example.\"")) {
                    responses += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
            assertEquals(25, requests, metrics.body());
            assertEquals(25, responses, metrics.body());
        }
    }

    /**
     * A node-local DNS restarting under load gets queries the moment its listeners open. They must be
     * answered and the start must finish: the first query once created the request path (and the forwarder)
     * on the event loop while the main thread, starting the forwarder, waited for that loop to bind the
     * upstream sockets; the start hung until that bind timed out and then failed.
     */
    @Test
    void queriesArrivingAsTheListenersOpenAreAnsweredAndTheStartFinishes() throws Exception {
        // Everything the client needs is built before the process starts, so the query follows the log line at once.
        org.xbill.DNS.SimpleResolver tcp = new org.xbill.DNS.SimpleResolver("127.0.0.1");
        tcp.setTCP(true);
        tcp.setTimeout(Duration.ofSeconds(5));
        org.xbill.DNS.Message query = org.xbill.DNS.Message.newQuery(org.xbill.DNS.Record.newRecord(
                org.xbill.DNS.Name.fromString("registry.mesh.example."), org.xbill.DNS.Type.A, org.xbill.DNS.DClass.IN));
        try (QuarkusJarProcess p = startDnsService("meshdns.dns.port=0", "meshdns.dns.zone-files=examples/zones/mesh.example.zone")) {
            tcp.setPort(p.awaitPort(LogLines.DNS_SERVICE_PORT, START));
            org.xbill.DNS.Message answer = tcp.send(query);
            assertEquals(org.xbill.DNS.Rcode.NOERROR, answer.getRcode(), p.output());
            p.awaitLine(LogLines.QUARKUS_STARTED, Duration.ofSeconds(20));
            assertTrue(!p.output().contains("cannot bind upstream"), p.output());
        }
    }

    /**
     * Where Netty's epoll cannot load (here switched off) the DNS sockets are on NIO: one WARN line says so and why,
     * the start line names the transport, and both transports answer. On epoll (the default here) the start line
     * says epoll and there is no such line.
     */
    @Test
    void theStartLineNamesTheTransportAndTheNioFallbackIsLoggedOnceSayingWhy() throws Exception {
        try (QuarkusJarProcess p = startDnsService("meshdns.dns.port=0", "meshdns.dns.zone-files=examples/zones/mesh.example.zone",
                "io.netty.transport.noNative=true")) {
            int port = p.awaitPort(LogLines.DNS_SERVICE_PORT, START);
            assertRegistryAnsweredOverUdpAndTcp("127.0.0.1", port);
            String output = p.output();
            assertTrue(output.contains("(udp+tcp, nio)"), output);
            assertEquals(1, output.split("DNS listeners on NIO: Netty's epoll transport cannot load here \\(", -1).length - 1, output);
        }
        try (QuarkusJarProcess p = startDnsService("meshdns.dns.port=0", "meshdns.dns.zone-files=examples/zones/mesh.example.zone")) {
            p.awaitPort(LogLines.DNS_SERVICE_PORT, START);
            assertTrue(p.output().contains("(udp+tcp, epoll)"), p.output());
            assertTrue(!p.output().contains("DNS listeners on NIO"), p.output());
        }
    }

    /** The packaged dns-service with {@code key=value} properties, HTTP on a port of its choosing unless given. */
    private static QuarkusJarProcess startDnsService(String... properties) throws IOException {
        return QuarkusJarProcess.module("dns-service").property("quarkus.http.port", "0").properties(properties).start();
    }

    private static void assumeIpv6() {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(Path.of("/proc/net/if_inet6")), "no IPv6 on this host");
    }

    /** registry.mesh.example A (examples/zones/mesh.example.zone) is answered, over UDP and over TCP. */
    private static void assertRegistryAnsweredOverUdpAndTcp(String server, int port) throws Exception {
        for (String proto : List.of("+notcp", "+tcp")) {
            String out = dig(server, port, proto, "registry.mesh.example", "A");
            assertTrue(out.contains("status: NOERROR"), out);
            assertTrue(out.contains("192.0.2.10"), out);
        }
    }

    static String dig(String server, int port, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("dig", "@" + server, "-p", String.valueOf(port), "+tries=3", "+time=5"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(20, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        return out;
    }
}
