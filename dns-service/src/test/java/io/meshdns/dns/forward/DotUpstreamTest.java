package io.meshdns.dns.forward;

import io.meshdns.testsupport.TestPki;
import io.meshdns.testsupport.dns.UnboundServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DNS over TLS (RFC 7858) to a real Unbound on loopback, with a certificate made for the test, and the connection
 * reuse and pipelining of RFC 7766 over it and over plain TCP.
 */
class DotUpstreamTest {
    static Path dir;
    static TestPki pki;
    static UnboundServer unbound;
    static Vertx vertx;
    final List<UpstreamForwarder> open = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("meshdns-dot");
        pki = TestPki.ca(dir, "dot");
        Path[] cert = pki.issue("unbound", "dot.test");
        List<String> data = new ArrayList<>();
        for (int i = 0; i < 64; i++) data.add("n" + i + ".example.test. 60 IN A 192.0.2." + (i + 1));
        unbound = new UnboundServer(cert[0], cert[1], data).start();
        vertx = Vertx.vertx();
    }

    @AfterAll
    static void stop() throws Exception {
        if (unbound != null) unbound.close();
        if (vertx != null) vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @AfterEach
    void closeForwarders() {
        open.forEach(UpstreamForwarder::close);
        open.clear();
    }

    private UpstreamForwarder forwarder(String upstream, Path ca, boolean forceTcp) {
        ForwardSettings settings = ForwardSettings.of(List.of(Upstream.parse(upstream, "test")))
                .withStreams(new ForwardSettings.StreamSettings(Duration.ofSeconds(10), 2, 64, ca)).withForceTcp(forceTcp)
                .withTimeouts(Duration.ofSeconds(3), Duration.ofSeconds(8));
        // No cache: every query below must reach the upstream.
        UpstreamForwarder f = new UpstreamForwarder(vertx, settings, null, new SimpleMeterRegistry()).start();
        open.add(f);
        return f;
    }

    private static CompletableFuture<Message> ask(Forwarder f, String name) {
        return f.forward(Message.newQuery(Record.newRecord(Name.fromConstantString(name), Type.A, DClass.IN))).toCompletableFuture();
    }

    private static String address(Message m) {
        assertEquals(Rcode.NOERROR, m.getRcode(), m.toString());
        return ((ARecord) m.getSection(Section.ANSWER).get(0)).getAddress().getHostAddress();
    }

    @Test
    void manyQueriesShareOneOrTwoVerifiedTlsConnections() throws Exception {
        UpstreamForwarder f = forwarder("tls://127.0.0.1:" + unbound.tlsPort() + "#dot.test", pki.caCert(), false);
        List<CompletableFuture<Message>> answers = new ArrayList<>();
        for (int i = 0; i < 64; i++) answers.add(ask(f, "n" + i + ".example.test."));
        for (int i = 0; i < 64; i++) {
            assertEquals("192.0.2." + (i + 1), address(answers.get(i).get(15, TimeUnit.SECONDS)), "n" + i);
        }
        int connections = f.openConnections().values().stream().mapToInt(Integer::intValue).sum();
        assertTrue(connections >= 1 && connections <= 2, "64 pipelined queries over " + connections + " connections");
    }

    @Test
    void aCertificateFromAnotherCaOrForAnotherNameIsRefused() throws Exception {
        TestPki other = TestPki.ca(dir.resolve("other"), "other");
        Message wrongCa = ask(forwarder("tls://127.0.0.1:" + unbound.tlsPort() + "#dot.test", other.caCert(), false),
                "n1.example.test.").get(20, TimeUnit.SECONDS);
        assertEquals(Rcode.SERVFAIL, wrongCa.getRcode(), "a certificate this CA did not sign");
        Message wrongName = ask(forwarder("tls://127.0.0.1:" + unbound.tlsPort() + "#not-dot.test", pki.caCert(), false),
                "n2.example.test.").get(20, TimeUnit.SECONDS);
        assertEquals(Rcode.SERVFAIL, wrongName.getRcode(), "a certificate for another name");
    }

    @Test
    void anUpstreamRestartMidStreamLosesNothing() throws Exception {
        UpstreamForwarder f = forwarder("tls://127.0.0.1:" + unbound.tlsPort() + "#dot.test", pki.caCert(), false);
        assertEquals("192.0.2.1", address(ask(f, "n0.example.test.").get(15, TimeUnit.SECONDS)));
        List<CompletableFuture<Message>> answers = new ArrayList<>();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
        int restarts = 0;
        for (int i = 0; System.nanoTime() < end && i < 400; i++) {
            answers.add(ask(f, "n" + (i % 64) + ".example.test."));
            if (i == 100 || i == 250) {
                unbound.stop();
                unbound.start();
                restarts++;
            }
            Thread.sleep(5);
        }
        assertEquals(2, restarts);
        System.out.printf("DoT restart: %d queries over 4 s, two upstream restarts%n", answers.size());
        for (int i = 0; i < answers.size(); i++) {
            assertEquals("192.0.2." + (i % 64 + 1), address(answers.get(i).get(20, TimeUnit.SECONDS)), "query " + i);
        }
    }

    /** TLS rides the same transport as plain TCP: epoll wherever it loads, not Vert.x's JDK transport. */
    @Test
    void tlsConnectionsAreOnEpoll() throws Exception {
        assertTrue(io.netty.channel.epoll.Epoll.isAvailable(), "Netty's epoll should load on this build machine");
        UpstreamForwarder f = forwarder("tls://127.0.0.1:" + unbound.tlsPort() + "#dot.test", pki.caCert(), false);
        assertEquals("192.0.2.1", address(ask(f, "n0.example.test.").get(15, TimeUnit.SECONDS)));
        assertEquals(java.util.Set.of(io.netty.channel.epoll.EpollSocketChannel.class), f.streamChannelClasses());
    }

    @Test
    void plainTcpIsReusedToo() throws Exception {
        UpstreamForwarder f = forwarder("127.0.0.1:" + unbound.port(), null, true);
        for (int i = 0; i < 20; i++) assertEquals("192.0.2." + (i + 1), address(ask(f, "n" + i + ".example.test.").get(15, TimeUnit.SECONDS)));
        assertEquals(1, f.openConnections().values().stream().mapToInt(Integer::intValue).sum(), "20 queries one after another, one connection");
    }

    @Test
    void badUpstreamEntriesNameTheKey() {
        IllegalArgumentException scheme = assertThrows(IllegalArgumentException.class, () -> Upstream.parse("https://9.9.9.9", "meshdns.dns.upstreams"));
        assertTrue(scheme.getMessage().startsWith("meshdns.dns.upstreams: 'https://9.9.9.9' has the scheme 'https://'"), scheme.getMessage());
        IllegalArgumentException noName = assertThrows(IllegalArgumentException.class, () -> Upstream.parse("tls://9.9.9.9", "meshdns.dns.upstreams"));
        assertTrue(noName.getMessage().contains("needs the server name"), noName.getMessage());
        Upstream u = Upstream.parse("tls://9.9.9.9", "meshdns.dns.upstreams", "dns.quad9.net");
        assertEquals(853, u.port());
        assertEquals("dns.quad9.net", u.serverName());
        assertEquals("tls://9.9.9.9:853", u.label());
    }
}
