package io.meshdns.dns.snapshot;

import org.junit.jupiter.api.Test;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.NSRecord;
import org.xbill.DNS.Name;
import org.xbill.DNS.RRset;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.TXTRecord;
import org.xbill.DNS.Type;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * Patching a snapshot must give exactly what building it from the resulting records gives: the same
 * nodes, the same empty non-terminals (RFC 8020), the same wildcard and delegation behaviour. Random
 * patches over a zone with deep names, wildcards and a delegation, checked against a fresh build after
 * every step.
 */
class SnapshotPatchTest {
    private static final Name ORIGIN = Name.fromConstantString("mesh.test.");
    private static final Name OTHER = Name.fromConstantString("other.test.");

    @Test
    void randomPatchesMatchAFreshBuild() throws Exception {
        Random random = new Random(7);
        List<Name> universe = new ArrayList<>();
        for (String n : List.of("a", "b.a", "c.b.a", "d.c.b.a", "x.d.c.b.a", "*.b.a", "e", "f.e", "*", "q.*.e", "deleg", "ns.deleg",
                "g.h.i", "h.i", "j.g.h.i", "k")) {
            universe.add(Name.concatenate(Name.fromString(n), ORIGIN));
        }
        Map<Name, List<Record>> state = new LinkedHashMap<>();
        Snapshot snapshot = Snapshot.build(1, content(state, 1));
        for (int step = 2; step < 400; step++) {
            Map<Name, List<Record>> owners = new HashMap<>();
            int changes = 1 + random.nextInt(4);
            for (int i = 0; i < changes; i++) {
                Name owner = universe.get(random.nextInt(universe.size()));
                List<Record> records = random.nextInt(3) == 0 ? List.of() : recordsFor(owner, random);
                owners.put(owner, records);
                if (records.isEmpty()) state.remove(owner);
                else state.put(owner, records);
            }
            owners.put(ORIGIN, List.of(soa(step)));
            snapshot = snapshot.patch(step, List.of(new ZonePatch(ORIGIN, owners)));
            Snapshot fresh = Snapshot.build(step, content(state, step));
            assertSameZone(fresh.findZone(ORIGIN), snapshot.findZone(ORIGIN), universe, "step " + step);
        }
    }

    @Test
    void patchSharesUntouchedZonesAndPatchesTheOverlay() throws Exception {
        Name host = Name.fromString("legacy.example.");
        Snapshot base = Snapshot.build(1, List.of(
                new ZoneContent(ORIGIN, List.of(soa(1), a("a.mesh.test.", "10.0.0.1")), true),
                new ZoneContent(OTHER, List.of(new SOARecord(OTHER, DClass.IN, 60, OTHER, OTHER, 1, 1, 1, 1, 60)), true),
                new ZoneContent(Name.root, List.of(a("legacy.example.", "192.0.2.1")), false)));
        Snapshot next = base.patch(2, List.of(
                new ZonePatch(ORIGIN, Map.of(Name.fromString("b.mesh.test."), List.of(a("b.mesh.test.", "10.0.0.2")))),
                new ZonePatch(null, Map.of(host, List.of(), Name.fromString("new.example."), List.of(a("new.example.", "192.0.2.2"))))));
        assertSame(base.zone(OTHER), next.zone(OTHER), "a zone nobody patched is shared");
        assertNotNull(next.findZone(ORIGIN).node(Name.fromString("a.mesh.test.")), "untouched owner kept");
        assertNotNull(next.findZone(ORIGIN).node(Name.fromString("b.mesh.test.")));
        assertNull(next.overlayNode(host), "overlay owner removed");
        assertNotNull(next.overlayNode(Name.fromString("new.example.")));
        assertNotNull(base.overlayNode(host), "the old snapshot never changes");
        assertEquals(1, base.findZone(ORIGIN).negativeSoa().getSerial());
        assertEquals(1, next.findZone(ORIGIN).negativeSoa().getSerial(), "an apex left out of the patch keeps its SOA");
    }

    private static void assertSameZone(ZoneIndex expected, ZoneIndex actual, List<Name> universe, String step) throws Exception {
        assertEquals(expected.size(), actual.size(), step + ": node count (owners + empty non-terminals)");
        Set<Name> names = new HashSet<>(universe);
        for (Name n : universe) {
            for (int strip = 1; n.labels() - strip >= ORIGIN.labels(); strip++) names.add(new Name(n, strip));
        }
        for (Name n : names) {
            assertEquals(describe(expected.node(n)), describe(actual.node(n)), step + ": node " + n);
            Name probe = Name.concatenate(Name.fromString("zz"), n);
            if (expected.node(probe) == null) {
                assertEquals(describe(expected.wildcardFor(probe)), describe(actual.wildcardFor(probe)), step + ": wildcard for " + probe);
            }
            assertEquals(String.valueOf(expected.delegationFor(n)), String.valueOf(actual.delegationFor(n)), step + ": delegation at " + n);
        }
        assertEquals(expected.negativeSoa().getSerial(), actual.negativeSoa().getSerial(), step + ": SOA serial");
    }

    private static String describe(Node node) {
        if (node == null) return "absent";
        Map<Integer, Set<String>> byType = new TreeMap<>();
        for (Map.Entry<Integer, RRset> e : node.rrsets().entrySet()) {
            Set<String> rdata = new TreeSet<>();
            e.getValue().rrs().forEach(r -> rdata.add(r.rdataToString() + "/" + r.getTTL()));
            byType.put(e.getKey(), rdata);
        }
        return node.owner() + " " + byType;
    }

    private static List<ZoneContent> content(Map<Name, List<Record>> state, long serial) {
        List<Record> records = new ArrayList<>();
        records.add(soa(serial));
        state.values().forEach(records::addAll);
        return List.of(new ZoneContent(ORIGIN, records, true));
    }

    private static List<Record> recordsFor(Name owner, Random random) throws Exception {
        List<Record> out = new ArrayList<>();
        if (owner.toString().startsWith("deleg.") && random.nextBoolean()) {
            out.add(new NSRecord(owner, DClass.IN, 60, Name.concatenate(Name.fromString("ns.deleg"), ORIGIN)));
            return out;
        }
        int n = 1 + random.nextInt(3);
        for (int i = 0; i < n; i++) {
            out.add(new ARecord(owner, DClass.IN, 60, InetAddress.getByName("10.0." + random.nextInt(4) + "." + random.nextInt(4))));
        }
        if (random.nextInt(4) == 0) out.add(new TXTRecord(owner, DClass.IN, 60, "t" + random.nextInt(3)));
        return out;
    }

    private static SOARecord soa(long serial) {
        return new SOARecord(ORIGIN, DClass.IN, 60, ORIGIN, ORIGIN, serial, 7200, 1800, 86400, 30);
    }

    private static Record a(String name, String ip) throws Exception {
        return new ARecord(Name.fromString(name), DClass.IN, 60, InetAddress.getByName(ip));
    }

    static {
        assert Type.A == 1;
    }
}
