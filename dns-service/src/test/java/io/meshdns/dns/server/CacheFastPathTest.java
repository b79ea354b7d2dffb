package io.meshdns.dns.server;

import io.meshdns.dns.DnsClient;
import io.meshdns.dns.answer.ClientInfo;
import io.meshdns.dns.answer.Transport;
import io.meshdns.dns.cache.DnsCache;
import io.meshdns.dns.forward.UpstreamForwarder;
import io.meshdns.dns.snapshot.SnapshotStore;
import io.meshdns.dns.snapshot.ZoneContent;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.ExtendedFlags;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

import java.net.InetAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cache fast path as the app wires it: {@link RequestProcessor#fastAnswer} against
 * {@link RequestProcessor#process} for names forwarded to the BIND upstream (the GLOBAL
 * {@code BindUpstreamResource}: example.test, www = 192.0.2.1, {@code *.wild}, a 4 KB {@code big}
 * TXT), its metrics, and a forwarded name that becomes ours.
 */
@QuarkusTest
@TestProfile(FastPathProfile.class)
class CacheFastPathTest {
    private static final ClientInfo CLIENT = new ClientInfo("127.0.0.1", 40000, false, Transport.UDP);

    @Inject
    RequestProcessor processor;
    @Inject
    UpstreamForwarder forwarder;
    @Inject
    SnapshotStore store;
    @Inject
    MeterRegistry registry;
    @Inject
    DnsServer server;

    @Test
    void cacheHitsOnTheFastPathEqualTheSlowPathsAndAreCounted() throws Exception {
        DnsCache cache = forwarder.cache();
        byte[][] queries = {
                query("www.example.test.", Type.A, 0, 1),
                query("WwW.ExAmple.TEST.", Type.A, 1232, 2),
                query("alias.example.test.", Type.A, 4096 | DO, 3),
                query("Nope-FastPath.example.test.", Type.A, 1232, 4),
                query("www.example.test.", Type.AAAA, 512, 5),
        };
        for (byte[] q : queries) {
            warm(q);
            String type = Type.string(new Message(q).getQuestion().getType());
            String rcode = Rcode.string(new Message(slow(q)).getRcode()); // a cache hit on the slow path
            double requests = counter("coredns.dns.requests", "zone", ".", "type", type);
            double responses = counter("coredns.dns.responses", "zone", ".", "rcode", rcode);
            long hits = cache.successHits() + cache.denialHits();
            long misses = cache.misses();
            byte[] fast = processor.fastAnswer(q, false);
            assertNotNull(fast, () -> "a fast-path cache hit: " + message(q));
            assertEquals(hits + 1, cache.successHits() + cache.denialHits(), "coredns_cache_hits_total counts it");
            assertEquals(misses, cache.misses());
            assertEquals(requests + 1, counter("coredns.dns.requests", "zone", ".", "type", type), "a request, zone \".\"");
            assertEquals(responses + 1, counter("coredns.dns.responses", "zone", ".", "rcode", Rcode.string(new Message(fast).getRcode())));
            assertSameAsSlow(q);
        }
        Message nx = new Message(processor.fastAnswer(queries[3], false));
        assertEquals(Rcode.NXDOMAIN, nx.getRcode());
        assertTrue(nx.getSection(Section.AUTHORITY).get(0) instanceof SOARecord);
        Message withDo = new Message(processor.fastAnswer(queries[2], false));
        assertEquals(ExtendedFlags.DO, withDo.getOPT().getFlags() & ExtendedFlags.DO, "DO echoed");
        assertFalse(withDo.getHeader().getFlag(Flags.AA));
    }

    @Test
    void theMemoIsVisibleInMetrics() throws Exception {
        warm(query("metrics-memo.wild.example.test.", Type.A, 0, 11));
        assertTrue(registry.get("meshdns.dns.answer.memo.entries").gauge().value() >= 1, "remembered answers");
        assertEquals(0, registry.get("meshdns.dns.answer.memo.evictions").functionCounter().count(), "far below the bound");
    }

    @Test
    void anAnswerThatMustBeTruncatedTakesTheSlowPath() throws Exception {
        byte[] q = query("big.example.test.", Type.TXT, 1232, 9);
        slow(q);
        slow(q); // cached and remembered by now (the first answer's remembering may lag its send)
        long hits = forwarder.cache().successHits();
        assertNull(processor.fastAnswer(q, false), "4 KB does not fit 1232: the slow path sets TC");
        assertEquals(hits, forwarder.cache().successHits(), "and counts the hit, not the fast path");
        assertTrue(new Message(slow(q)).getHeader().getFlag(Flags.TC));
    }

    @Test
    void aForwardedNameThatBecomesOursLeavesTheCacheFastPath() throws Exception {
        byte[] q = query("takeover.wild.example.test.", Type.A, 1232, 7);
        warm(q);
        assertEquals("192.0.2.7", address(processor.fastAnswer(q, false)));

        Name origin = Name.fromString("takeover.wild.example.test.");
        store.publish("cache-fast-path-test", List.of(new ZoneContent(origin, List.of(
                new SOARecord(origin, DClass.IN, 60, Name.fromString("ns.takeover.wild.example.test."),
                        Name.fromString("hostmaster.takeover.wild.example.test."), 1, 3600, 600, 86400, 60),
                new ARecord(origin, DClass.IN, 60, InetAddress.getByName("10.9.9.9"))), true)));
        try {
            assertNull(processor.fastAnswer(q, false), "a new snapshot: nothing of the old one is replayed");
            Message ours = new Message(slow(q));
            assertEquals("10.9.9.9", address(ours.toWire()));
            assertTrue(ours.getHeader().getFlag(Flags.AA), "now ours");
            assertEquals("10.9.9.9", address(processor.fastAnswer(q, false)), "and replayed as ours");
        } finally {
            store.withdraw("cache-fast-path-test");
        }
        assertNull(processor.fastAnswer(q, false));
        slow(q); // a cache hit on the slow path, remembered as forwarded again
        assertEquals("192.0.2.7", address(processor.fastAnswer(q, false)), "forwarded again, from the cache");
    }

    @Test
    void theListenerServesForwardedAnswersWithOurOpt() throws Exception {
        DnsClient client = new DnsClient(server.boundPort());
        for (int i = 0; i < 3; i++) {
            Message m = client.send(DnsClient.withEdns(DnsClient.query("listener.wild.example.test.", Type.A, DClass.IN), 1232, 0), false);
            assertEquals("192.0.2.7", address(m.toWire()));
            OPTRecord opt = m.getOPT();
            assertNotNull(opt, "EDNS query, EDNS answer (RFC 6891 section 7)");
            assertEquals(1232, opt.getPayloadSize());
        }
    }

    /** Fast and slow answer to the same bytes under the same cache state; retried if a TTL second ticked between them. */
    private void assertSameAsSlow(byte[] q) throws Exception {
        byte[] fast = null;
        byte[] slow = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            fast = processor.fastAnswer(q, false);
            slow = slow(q);
            if (Arrays.equals(fast, slow)) {
                return;
            }
        }
        assertArrayEquals(slow, fast, () -> "fast != slow for " + message(q));
    }

    /**
     * Asks until the fast path answers: the first answer comes from the upstream on an event loop,
     * which sends it before it is remembered and counted.
     */
    private void warm(byte[] q) throws Exception {
        slow(q);
        await().atMost(Duration.ofSeconds(10)).until(() -> processor.fastAnswer(q, false) != null);
    }

    private byte[] slow(byte[] q) throws Exception {
        CompletableFuture<byte[]> sent = new CompletableFuture<>();
        processor.process(q, CLIENT, sent::complete);
        return sent.get(10, TimeUnit.SECONDS);
    }

    private static final int DO = 1 << 16;

    /** {@code edns}: 0 none, else the payload size, plus {@link #DO} for the DO bit. */
    private static byte[] query(String name, int type, int edns, int id) throws Exception {
        Message m = Message.newQuery(Record.newRecord(Name.fromString(name), type, DClass.IN));
        m.getHeader().setID(id);
        if (edns != 0) {
            m.addRecord(new OPTRecord(edns & 0xFFFF, 0, 0, (edns & DO) != 0 ? ExtendedFlags.DO : 0), Section.ADDITIONAL);
        }
        return m.toWire();
    }

    private static String message(byte[] wire) {
        try {
            return new Message(wire).toString();
        } catch (Exception e) {
            return Arrays.toString(wire);
        }
    }

    private static String address(byte[] wire) throws Exception {
        return ((ARecord) new Message(wire).getSection(Section.ANSWER).get(0)).getAddress().getHostAddress();
    }

    private double counter(String name, String tag, String value, String tag2, String value2) {
        FunctionCounter c = registry.find(name).tag(tag, value).tag(tag2, value2).tag("proto", "udp").functionCounter();
        if (c == null) {
            c = registry.find(name).tag(tag, value).tag(tag2, value2).functionCounter();
        }
        return c == null ? 0 : c.count();
    }
}
