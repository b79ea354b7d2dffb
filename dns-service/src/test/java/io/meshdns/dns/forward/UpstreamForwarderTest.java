package io.meshdns.dns.forward;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.meshdns.dns.cache.CacheKey;
import io.meshdns.dns.cache.CacheSettings;
import io.meshdns.dns.cache.DnsCache;
import io.meshdns.testsupport.dns.BindServer;
import io.meshdns.testsupport.dns.DnsServer;
import io.meshdns.testsupport.dns.LoopbackPorts;
import io.meshdns.dns.testing.ForwarderUdpFrontend;
import io.meshdns.testsupport.dns.KnotServer;
import io.meshdns.dns.testing.TestZones;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * The forwarder against real upstreams: BIND9 (example.test, www = 192.0.2.1, query log on) and Knot
 * (example.test with www = 198.51.100.1, and other.test), started on loopback ports by the test.
 * One class for every forwarding behaviour, because the two servers are started once for all of them.
 */
class UpstreamForwarderTest {
    private static final String BIND_WWW = "192.0.2.1";
    private static final String KNOT_WWW = "198.51.100.1";

    @TempDir
    static Path tmp;
    static Vertx vertx;
    static BindServer bind;
    static KnotServer knot;

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private SimpleMeterRegistry registry;

    @BeforeAll
    static void startUpstreams() {
        vertx = Vertx.vertx();
        bind = new BindServer(tmp.resolve("bind")).zone("example.test", TestZones.example("example.test", BIND_WWW));
        knot = new KnotServer(tmp.resolve("knot")).zone("example.test", TestZones.example("example.test", KNOT_WWW))
                .zone("other.test", TestZones.example("other.test", "198.51.100.2"));
        bind.start();
        knot.start();
    }

    @AfterAll
    static void stopUpstreams() {
        knot.close();
        bind.close();
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @AfterEach
    void closeForwarders() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    private UpstreamForwarder forwarder(ForwardSettings settings, DnsCache cache) {
        registry = new SimpleMeterRegistry();
        UpstreamForwarder f = new UpstreamForwarder(vertx, settings, cache, registry).start();
        toClose.add(f);
        return f;
    }

    private static ForwardSettings sequential(DnsServer<?>... servers) {
        List<Upstream> upstreams = new ArrayList<>();
        for (DnsServer<?> s : servers) {
            upstreams.add(Upstream.parse(s.address(), "test"));
        }
        return ForwardSettings.of(upstreams).withPolicy(ForwardPolicy.SEQUENTIAL);
    }

    private static DnsCache realTimeCache() {
        return new DnsCache(CacheSettings.defaults(), System::currentTimeMillis);
    }

    private static Message query(String name, int type, int id) {
        Message q = Message.newQuery(Record.newRecord(Name.fromConstantString(name), type, DClass.IN));
        q.getHeader().setID(id);
        return q;
    }

    private static Message ask(Forwarder f, String name, int type) throws Exception {
        return f.forward(query(name, type, 4242)).toCompletableFuture().get(15, TimeUnit.SECONDS);
    }

    private static String firstAddress(Message m) {
        return ((ARecord) m.getSection(Section.ANSWER).get(0)).getAddress().getHostAddress();
    }

    private double counter(String name, String to) {
        FunctionCounter c = registry.find(name).tag("to", to).functionCounter();
        return c == null ? 0 : c.count();
    }

    @Test
    void answersFromUpstreamThenFromCacheEchoingIdAndCase() throws Exception {
        DnsCache cache = realTimeCache();
        UpstreamForwarder f = forwarder(sequential(bind), cache);

        Message first = f.forward(query("WwW.Example.Test.", Type.A, 1234)).toCompletableFuture().get(15, TimeUnit.SECONDS);
        assertEquals(Rcode.NOERROR, first.getRcode());
        assertEquals(1234, first.getHeader().getID());
        assertEquals("WwW.Example.Test.", first.getQuestion().getName().toString());
        assertEquals(BIND_WWW, firstAddress(first));
        assertEquals(300, first.getSection(Section.ANSWER).get(0).getTTL());
        assertEquals(null, first.getOPT(), "the upstream's OPT is not passed on");

        Message second = f.forward(query("www.example.test.", Type.A, 77)).toCompletableFuture().get(15, TimeUnit.SECONDS);
        assertEquals(77, second.getHeader().getID());
        assertEquals("www.example.test.", second.getQuestion().getName().toString());
        assertEquals(BIND_WWW, firstAddress(second));
        assertEquals(1, cache.successHits());
        assertEquals(1, cache.misses());

        Message wireQuery = query("WWW.example.test.", Type.A, 555);
        Message fromWire = new Message(cachedAnswerWire(f, wireQuery));
        assertEquals(555, fromWire.getHeader().getID());
        assertEquals("WWW.example.test.", fromWire.getQuestion().getName().toString());
        assertEquals(BIND_WWW, firstAddress(fromWire));
        assertEquals(null, cachedAnswerWire(f, query("nothing-cached.example.test.", Type.A, 1)));
        assertEquals(1, cache.misses(), "the fast path leaves miss counting to forward()");
        assertEquals(1, counter("coredns.forward.requests", bind.address()));
        assertEquals(1, registry.find("coredns.forward.responses").tag("to", bind.address()).tag("rcode", "NOERROR")
                .functionCounter().count());
        assertEquals(1, registry.find("coredns.forward.request.duration").tag("to", bind.address()).timer().count());
    }

    @Test
    void truncatedUdpAnswerIsRetriedOverTcp() throws Exception {
        UpstreamForwarder f = forwarder(sequential(bind), null);
        Message big = ask(f, "big.example.test.", Type.TXT);
        assertEquals(Rcode.NOERROR, big.getRcode());
        assertFalse(big.getHeader().getFlag(Flags.TC));
        assertEquals(20, big.getSection(Section.ANSWER).size());
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            List<String> log = bind.queriesFor("big.example.test");
            assertEquals(2, log.size(), log.toString());
            assertFalse(BindServer.isTcp(log.get(0)), "first over UDP: " + log.get(0));
            assertTrue(BindServer.isTcp(log.get(1)), "then over TCP: " + log.get(1));
        });
    }

    @Test
    void forceTcpUsesTcpOnly() throws Exception {
        UpstreamForwarder f = forwarder(sequential(bind).withForceTcp(true), null);
        assertEquals("192.0.2.7", firstAddress(ask(f, "force-tcp.wild.example.test.", Type.A)));
        // a large answer arrives whole at once (asked from Knot: BIND's log of big.example.test belongs to the TC test)
        Message big = ask(forwarder(sequential(knot).withForceTcp(true), null), "big.example.test.", Type.TXT);
        assertFalse(big.getHeader().getFlag(Flags.TC));
        assertEquals(20, big.getSection(Section.ANSWER).size());
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            List<String> log = bind.queriesFor("force-tcp.wild.example.test");
            assertEquals(1, log.size(), log.toString());
            assertTrue(BindServer.isTcp(log.get(0)), log.get(0));
        });
    }

    @Test
    void negativeAnswersCarryTheSoaAndAreCached() throws Exception {
        DnsCache cache = realTimeCache();
        UpstreamForwarder f = forwarder(sequential(bind), cache);
        Message nx = ask(f, "nope.example.test.", Type.A);
        assertEquals(Rcode.NXDOMAIN, nx.getRcode());
        Record soa = nx.getSection(Section.AUTHORITY).get(0);
        assertEquals(Type.SOA, soa.getType());
        assertEquals(60, soa.getTTL(), "min(SOA TTL 300, MINIMUM 60)");

        Message nodata = ask(f, "www.example.test.", Type.AAAA);
        assertEquals(Rcode.NOERROR, nodata.getRcode());
        assertTrue(nodata.getSection(Section.ANSWER).isEmpty());
        assertEquals(Type.SOA, nodata.getSection(Section.AUTHORITY).get(0).getType());
        assertEquals(2, cache.denialEntries());

        Message cachedNx = ask(f, "NOPE.example.test.", Type.A);
        assertEquals(Rcode.NXDOMAIN, cachedNx.getRcode());
        assertTrue(cachedNx.getSection(Section.AUTHORITY).get(0).getTTL() <= 60);
        assertEquals(1, cache.denialHits());
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertEquals(1, bind.queriesFor("nope.example.test").size()));
    }

    @Test
    void servesStaleWhileTheUpstreamIsDownThenServfailThenRecovers() throws Exception {
        try (BindServer own = new BindServer(tmp.resolve("bind-stale")).zone("example.test",
                TestZones.example("example.test", BIND_WWW))) {
            own.start();
            AtomicLong clock = new AtomicLong(System.currentTimeMillis());
            DnsCache cache = new DnsCache(CacheSettings.defaults().withServeStale(true, 600), clock::get);
            UpstreamForwarder f = forwarder(sequential(own).withTimeouts(Duration.ofMillis(300), Duration.ofSeconds(1)), cache);

            assertEquals(300, ask(f, "www.example.test.", Type.A).getSection(Section.ANSWER).get(0).getTTL());
            clock.addAndGet(301_000); // expired
            own.stop();

            Message stale = ask(f, "www.example.test.", Type.A);
            assertEquals(Rcode.NOERROR, stale.getRcode());
            assertEquals(BIND_WWW, firstAddress(stale));
            assertEquals(30, stale.getSection(Section.ANSWER).get(0).getTTL(), "RFC 8767 stale TTL");
            assertEquals(1, cache.servedStale());
            await().atMost(Duration.ofSeconds(10)).until(() -> counter("coredns.forward.healthcheck.failures", own.address()) >= 1);

            // A name never cached: SERVFAIL within the forwarder's own total timeout (1 s here), not a client's retry budget.
            long asked = System.nanoTime();
            assertEquals(Rcode.SERVFAIL, ask(f, "never-cached.example.test.", Type.A).getRcode());
            long servfailMillis = (System.nanoTime() - asked) / 1_000_000;
            System.out.println("upstream down: SERVFAIL for an uncached name after " + servfailMillis + " ms");
            assertTrue(servfailMillis < 3_000, "SERVFAIL bounded by the total timeout, took " + servfailMillis + " ms");

            clock.addAndGet(600_000); // past the stale window
            assertEquals(Rcode.SERVFAIL, ask(f, "www.example.test.", Type.A).getRcode());

            own.start(); // same port: the upstream comes back
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                Message fresh = ask(f, "www.example.test.", Type.A);
                assertEquals(Rcode.NOERROR, fresh.getRcode());
                assertEquals(300, fresh.getSection(Section.ANSWER).get(0).getTTL());
            });
        }
    }

    @Test
    void pastMaxConcurrentTheAnswerIsRefused() throws Exception {
        try (DatagramSocket blackHole = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            ForwardSettings settings = ForwardSettings.of(List.of(Upstream.parse("127.0.0.1:" + blackHole.getLocalPort(), "test")))
                    .withMaxConcurrent(2).withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(1));
            UpstreamForwarder f = forwarder(settings, null);
            CompletableFuture<Message> one = f.forward(query("one.example.", Type.A, 1)).toCompletableFuture();
            CompletableFuture<Message> two = f.forward(query("two.example.", Type.A, 2)).toCompletableFuture();
            Message three = f.forward(query("three.example.", Type.A, 3)).toCompletableFuture().getNow(null);
            assertFalse(one.isDone());
            assertFalse(two.isDone());
            assertEquals(Rcode.REFUSED, three.getRcode());
            assertEquals(3, three.getHeader().getID());
            assertEquals(1, registry.find("coredns.forward.max.concurrent.rejects").functionCounter().count());

            assertEquals(Rcode.SERVFAIL, one.get(10, TimeUnit.SECONDS).getRcode(), "the black hole never answers");
            assertEquals(Rcode.SERVFAIL, two.get(10, TimeUnit.SECONDS).getRcode());
            assertEquals(0, f.inFlight());
        }
    }

    @Test
    void sequentialRoundRobinAndRandomPolicies() throws Exception {
        UpstreamForwarder seq = forwarder(sequential(bind, knot), null);
        for (int i = 0; i < 4; i++) {
            assertEquals(BIND_WWW, firstAddress(ask(seq, "www.example.test.", Type.A)));
        }

        UpstreamForwarder rr = forwarder(sequential(bind, knot).withPolicy(ForwardPolicy.ROUND_ROBIN), null);
        List<String> answers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            answers.add(firstAddress(ask(rr, "www.example.test.", Type.A)));
        }
        assertEquals(Set.of(BIND_WWW, KNOT_WWW), Set.copyOf(answers));
        for (int i = 1; i < answers.size(); i++) {
            assertNotEquals(answers.get(i - 1), answers.get(i), "round-robin alternates: " + answers);
        }
        assertEquals(2, counter("coredns.forward.requests", bind.address()));
        assertEquals(2, counter("coredns.forward.requests", knot.address()));

        UpstreamForwarder random = forwarder(sequential(bind, knot).withPolicy(ForwardPolicy.RANDOM), null);
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 30 && seen.size() < 2; i++) {
            seen.add(firstAddress(ask(random, "www.example.test.", Type.A)));
        }
        assertEquals(Set.of(BIND_WWW, KNOT_WWW), seen);
    }

    @Test
    void aDeadUpstreamIsSkippedOnceDownAndHealthChecked() throws Exception {
        int deadPort = LoopbackPorts.pick();
        String dead = "127.0.0.1:" + deadPort;
        ForwardSettings settings = ForwardSettings.of(List.of(Upstream.parse(dead, "test"), Upstream.parse(bind.address(), "test")))
                .withPolicy(ForwardPolicy.SEQUENTIAL).withTimeouts(Duration.ofMillis(300), Duration.ofSeconds(3));
        UpstreamForwarder f = forwarder(settings, null);
        for (int i = 0; i < 4; i++) {
            assertEquals("192.0.2.7", firstAddress(ask(f, "failover-" + i + ".wild.example.test.", Type.A)));
        }
        assertEquals(2, counter("coredns.forward.requests", dead), "down after max-fails (2): no longer tried");
        await().atMost(Duration.ofSeconds(10)).until(() -> counter("coredns.forward.healthcheck.failures", dead) >= 1);
    }

    @Test
    void zoneForwardsRouteTheirNamesToTheirServers() throws Exception {
        ForwardSettings settings = sequential(bind)
                .withZoneForwards(ZoneForward.parse(List.of("other.test=" + knot.address())));
        UpstreamForwarder f = forwarder(settings, realTimeCache());
        assertEquals("198.51.100.2", firstAddress(ask(f, "www.other.test.", Type.A)), "other.test goes to Knot");
        assertEquals(BIND_WWW, firstAddress(ask(f, "www.example.test.", Type.A)), "the rest to the default upstream");
        assertEquals(1, counter("coredns.forward.requests", knot.address()));
        assertEquals(1, counter("coredns.forward.requests", bind.address()));
    }

    @Test
    void spoofedAnswersAreIgnoredAndTheClientIdIsNotReusedUpstream() throws Exception {
        AtomicInteger upstreamId = new AtomicInteger(-1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (DatagramSocket upstream = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             DatagramSocket other = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             DatagramSocket otherHost = new DatagramSocket(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), upstream.getLocalPort()))) {
            Thread responder = new Thread(() -> {
                try {
                    DatagramPacket in = new DatagramPacket(new byte[1500], 1500);
                    upstream.receive(in);
                    Message q = new Message(java.util.Arrays.copyOf(in.getData(), in.getLength()));
                    upstreamId.set(q.getHeader().getID());
                    // 1: wrong ID, 2: right ID but another question, 3: right everything from another port,
                    // 4: right everything from the upstream's port on another address, 5: genuine
                    sendAnswer(upstream, in, reply(q, q.getHeader().getID() ^ 1, q.getQuestion().getName(), "203.0.113.1"));
                    sendAnswer(upstream, in, reply(q, q.getHeader().getID(), Name.fromConstantString("evil.example."), "203.0.113.2"));
                    sendAnswer(other, in, reply(q, q.getHeader().getID(), q.getQuestion().getName(), "203.0.113.3"));
                    sendAnswer(otherHost, in, reply(q, q.getHeader().getID(), q.getQuestion().getName(), "203.0.113.4"));
                    sendAnswer(upstream, in, reply(q, q.getHeader().getID(), q.getQuestion().getName(), "203.0.113.77"));
                } catch (Exception e) {
                    failure.set(e);
                }
            });
            responder.start();
            UpstreamForwarder f = forwarder(ForwardSettings.of(List.of(Upstream.parse("127.0.0.1:" + upstream.getLocalPort(), "test"))), null);
            Message answer = f.forward(query("target.example.", Type.A, 4242)).toCompletableFuture().get(10, TimeUnit.SECONDS);
            responder.join(5000);
            assertEquals(null, failure.get());
            assertEquals("203.0.113.77", firstAddress(answer));
            assertEquals(4242, answer.getHeader().getID());
            assertNotEquals(4242, upstreamId.get(), "a fresh random ID upstream");
        }
    }

    /** RFC 5452 section 9.2: source ports per query from a large changing pool (BIND's query log shows the port). */
    @Test
    void udpQueriesLeaveFromRandomSourcePorts() throws Exception {
        // A socket per query: every query has a port of its own.
        assertTrue(distinctSourcePorts(sequential(bind).withUdpSockets(8, 1), "own-port", 40) >= 37);
        // The defaults (256 sockets, each replaced after 16 queries): 60 random picks of 256 give ~53 ports.
        assertTrue(distinctSourcePorts(sequential(bind), "default-port", 60) >= 40);
    }

    /**
     * The start binds one socket per family (a family that cannot bind fails it); the pool grows as queries land on
     * its empty slots, so an idle node holds one socket, not the pool's 256 (it held 256 from the start before).
     */
    @Test
    void thePoolStartsWithOneSocketAndGrowsWithUse() throws Exception {
        registry = new SimpleMeterRegistry();
        UpstreamForwarder f = new UpstreamForwarder(vertx, sequential(bind).withUdpSockets(32, 256), null, registry).start();
        toClose.add(f);
        assertEquals(1, f.pooledSockets());
        Thread.sleep(300);
        assertEquals(1, f.pooledSockets(), "nothing grows without queries");
        for (int i = 0; i < 40; i++) {
            assertEquals(BIND_WWW, firstAddress(ask(f, "www.example.test.", Type.A)));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> f.pooledSockets() > 8);
        assertTrue(f.pooledSockets() <= 32);
    }

    private int distinctSourcePorts(ForwardSettings settings, String label, int queries) throws Exception {
        UpstreamForwarder f = forwarder(settings, null);
        for (int i = 0; i < queries; i++) {
            assertEquals(Rcode.NXDOMAIN, ask(f, label + "-" + i + ".example.test.", Type.A).getRcode());
        }
        Set<Integer> ports = new HashSet<>();
        for (int i = 0; i < queries; i++) {
            List<String> lines = bind.queriesFor(label + "-" + i + ".example.test");
            assertEquals(1, lines.size(), lines.toString());
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("127\\.0\\.0\\.1#(\\d+)").matcher(lines.get(0));
            assertTrue(m.find(), lines.get(0));
            ports.add(Integer.parseInt(m.group(1)));
        }
        // The kernel picks each ephemeral port at random, so a repeat is possible but rare.
        System.out.println(label + ": " + queries + " queries from " + ports.size() + " source ports");
        return ports.size();
    }

    /** 0x20 on: BIND sees mixed case, echoes it, and the client gets its own case back. */
    @Test
    void caseRandomisationSendsMixedCaseAndTheClientSeesItsOwnCase() throws Exception {
        UpstreamForwarder f = forwarder(sequential(bind).withCaseRandomization(true), null);
        String name = "case-randomisation-check.example.test.";
        Message answer = ask(f, "www.example.test.", Type.A);
        assertEquals(BIND_WWW, firstAddress(answer));
        assertEquals("www.example.test.", answer.getQuestion().getName().toString());
        assertEquals("www.example.test.", answer.getSection(Section.ANSWER).get(0).getName().toString(),
                "the answer's owner name in the client's case");
        for (int i = 0; i < 5; i++) {
            ask(f, name, Type.A);
        }
        List<String> seen = new ArrayList<>();
        for (String line : bind.log().split("\n")) {
            int q = line.indexOf("query: ");
            if (q >= 0 && line.substring(q).toLowerCase().startsWith("query: " + name.substring(0, name.length() - 1))) {
                seen.add(line.substring(q + 7, q + 7 + name.length() - 1));
            }
        }
        assertEquals(5, seen.size(), seen.toString());
        assertTrue(seen.stream().anyMatch(n -> !n.equals(n.toLowerCase())), "mixed case upstream: " + seen);
        assertTrue(new HashSet<>(seen).size() > 1, "a new pattern per query: " + seen);
    }

    /** An upstream that lowercases the question: the 0x20 answer is refused and the query asked again without it. */
    @Test
    void aCaseMismatchFallsBackToAPlainQuery() throws Exception {
        List<String> asked = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (DatagramSocket upstream = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            Thread responder = new Thread(() -> {
                try {
                    for (int i = 0; i < 2; i++) {
                        DatagramPacket in = new DatagramPacket(new byte[1500], 1500);
                        upstream.receive(in);
                        Message q = new Message(java.util.Arrays.copyOf(in.getData(), in.getLength()));
                        asked.add(q.getQuestion().getName().toString());
                        Name lower = Name.fromString(q.getQuestion().getName().toString().toLowerCase());
                        sendAnswer(upstream, in, reply(q, q.getHeader().getID(), lower, "203.0.113.20"));
                    }
                } catch (Exception e) {
                    failure.set(e);
                }
            });
            responder.setDaemon(true);
            responder.start();
            UpstreamForwarder f = forwarder(ForwardSettings.of(List.of(Upstream.parse("127.0.0.1:" + upstream.getLocalPort(), "test")))
                    .withCaseRandomization(true), null);
            Message answer = f.forward(query("lowercasing-upstream.example.", Type.A, 99)).toCompletableFuture().get(10, TimeUnit.SECONDS);
            responder.join(5000);
            assertEquals(null, failure.get());
            assertEquals(Rcode.NOERROR, answer.getRcode(), answer.toString());
            assertEquals("203.0.113.20", firstAddress(answer));
            assertEquals(2, asked.size(), asked.toString());
            assertNotEquals(asked.get(0), asked.get(0).toLowerCase(), "first query with 0x20: " + asked);
            assertEquals("lowercasing-upstream.example.", asked.get(1), "the fallback is the client's own case");
        }
    }

    private static Message reply(Message q, int id, Name name, String address) throws Exception {
        Message r = new Message(id);
        r.getHeader().setFlag(Flags.QR);
        r.addRecord(Record.newRecord(name, Type.A, DClass.IN), Section.QUESTION);
        r.addRecord(new ARecord(name, DClass.IN, 60, InetAddress.getByName(address)), Section.ANSWER);
        return r;
    }

    private static void sendAnswer(DatagramSocket from, DatagramPacket to, Message m) throws Exception {
        byte[] wire = m.toWire();
        from.send(new DatagramPacket(wire, wire.length, to.getSocketAddress()));
    }

    @Test
    void aForwardingLoopThroughBindIsDetectedAndThatUpstreamDisabled() throws Exception {
        AtomicReference<Forwarder> self = new AtomicReference<>();
        try (ForwarderUdpFrontend frontend = new ForwarderUdpFrontend(vertx, self::get);
             BindServer loopingBind = new BindServer(tmp.resolve("bind-loop"))
                     .zone("loop.test", TestZones.example("loop.test", BIND_WWW))
                     .forwardOnlyTo("127.0.0.1", frontend.port())) {
            loopingBind.start();
            ForwardSettings settings = sequential(loopingBind).withLoopDetect(true, Duration.ofMillis(50))
                    .withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(2));
            UpstreamForwarder f = forwarder(settings, null);
            self.set(f);

            await().atMost(Duration.ofSeconds(15)).until(() -> !f.loopingUpstreams().isEmpty());
            assertEquals(List.of(loopingBind.address()), f.loopingUpstreams().stream().map(Upstream::label).toList());
            assertEquals(1, counter("meshdns.forward.loops.detected", loopingBind.address()));
            assertEquals(Rcode.SERVFAIL, ask(f, "www.example.org.", Type.A).getRcode(), "no usable upstream is left");
        }
    }

    /** The listener's fast-path call (see fastpath.CacheReplay) for a query without OPT. */
    private static byte[] cachedAnswerWire(UpstreamForwarder f, Message query) {
        return f.cachedAnswerWire(CacheKey.of(query), query.toWire(), query.getQuestion().getName().toWire().length,
                null, 65535);
    }
}
