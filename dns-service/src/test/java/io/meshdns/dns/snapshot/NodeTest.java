package io.meshdns.dns.snapshot;

import org.junit.jupiter.api.Test;
import org.xbill.DNS.AAAARecord;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Name;
import org.xbill.DNS.RRSIGRecord;
import org.xbill.DNS.RRset;
import org.xbill.DNS.Record;
import org.xbill.DNS.TXTRecord;
import org.xbill.DNS.Type;

import java.net.InetAddress;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The compact node gives back exactly the RRsets it was built from, whatever form it keeps them in. */
class NodeTest {
    private static final Name OWNER = name("web.shop.svc.cluster.local.");

    @Test
    void everyTypeComesBackWithItsRecordsTtlsAndSignatures() throws Exception {
        Record a = new ARecord(OWNER, DClass.IN, 30, InetAddress.getByName("10.96.0.10"));
        Record aaaa1 = new AAAARecord(OWNER, DClass.IN, 30, InetAddress.getByName("fd00::1"));
        Record aaaa2 = new AAAARecord(OWNER, DClass.IN, 60, InetAddress.getByName("fd00::2"));
        Record txt = new TXTRecord(OWNER, DClass.IN, 30, "v=1");
        Record sig = new RRSIGRecord(OWNER, DClass.IN, 30, Type.TXT, 13, 30, Instant.parse("2030-01-01T00:00:00Z"),
                Instant.parse("2026-01-01T00:00:00Z"), 12345, OWNER, new byte[64]);
        Map<Integer, RRset> built = Node.rrsets(List.of(a, aaaa1, aaaa2, txt, sig));
        Node node = new Node(OWNER, built);

        assertFalse(node.isEmptyNonTerminal());
        assertEquals(OWNER, node.owner());
        assertEquals(List.of(a), node.get(Type.A).rrs(false));
        assertEquals(2, node.get(Type.AAAA).size());
        assertEquals(30, node.get(Type.AAAA).getTTL(), "the RRset TTL aligned to the lowest, as dnsjava built it");
        assertEquals(List.of(txt), node.get(Type.TXT).rrs(false));
        assertEquals(1, node.get(Type.RRSIG).sigs().size(), "the RRSIG grouping kept as built");
        assertNull(node.get(Type.MX));
        assertEquals(built.keySet(), node.rrsets().keySet());
        for (Map.Entry<Integer, RRset> e : built.entrySet()) {
            assertEquals(e.getValue().rrs(false), node.rrsets().get(e.getKey()).rrs(false), "type " + e.getKey());
            assertEquals(e.getValue().sigs(), node.rrsets().get(e.getKey()).sigs(), "type " + e.getKey());
        }
    }

    /** dnsjava keeps the round-robin position in the RRset object: a multi-record RRset must be the same one each time. */
    @Test
    void anRRsetOfSeveralRecordsIsSharedSoItKeepsRotating() throws Exception {
        Record a1 = new ARecord(OWNER, DClass.IN, 30, InetAddress.getByName("10.0.0.1"));
        Record a2 = new ARecord(OWNER, DClass.IN, 30, InetAddress.getByName("10.0.0.2"));
        Node node = new Node(OWNER, Node.rrsets(List.of(a1, a2)));
        assertSame(node.get(Type.A), node.get(Type.A));
        Record firstAnswer = node.get(Type.A).rrs(true).get(0);
        Record secondAnswer = node.get(Type.A).rrs(true).get(0);
        assertTrue(firstAnswer != secondAnswer, "rotated");
    }

    @Test
    void aNodeWithoutRRsetsIsAnEmptyNonTerminal() {
        Node node = new Node(OWNER, Map.of());
        assertTrue(node.isEmptyNonTerminal());
        assertNull(node.get(Type.A));
        assertTrue(node.rrsets().isEmpty());
    }

    private static Name name(String s) {
        try {
            return Name.fromString(s);
        } catch (Exception e) {
            throw new IllegalArgumentException(s, e);
        }
    }
}
