package io.meshdns.dns.dynamic;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Type;
import org.xbill.DNS.Update;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The journal on a real temp directory: replay after a restart, a damaged tail, compaction. */
class ZoneJournalTest {
    static final Name ZONE = Name.fromConstantString("mesh.example.");

    @TempDir
    Path dir;

    /** Applies an UPDATE the way DynamicZones does: pure step, then journal. */
    static ZoneData apply(ZoneJournal journal, ZoneData zone, org.xbill.DNS.Message u) throws Exception {
        UpdateProcessor.Result r = UpdateProcessor.apply(zone, u);
        assertEquals(Rcode.NOERROR, r.rcode());
        journal.append(r.removed(), r.added());
        return r.next();
    }

    static Update add(String name, int type, String rdata) throws Exception {
        Update u = new Update(ZONE);
        u.add(Name.fromString(name), type, 60, rdata);
        return u;
    }

    @Test
    void aRestartReplaysEveryUpdateIncludingSrvTxtAndDeletes() throws Exception {
        ZoneJournal.Loaded first = ZoneJournal.open(dir, ZONE);
        assertEquals(1, first.zone().soa().getSerial());
        ZoneData zone = first.zone();
        zone = apply(first.journal(), zone, add("registry.nsm.mesh.example.", Type.SRV, "0 10 5002 registry.nsm.mesh.example."));
        zone = apply(first.journal(), zone, add("registry.nsm.mesh.example.", Type.A, "203.0.113.5"));
        zone = apply(first.journal(), zone, add("a-registry.nsm.mesh.example.", Type.TXT,
                "\"heritage=external-dns,external-dns/owner=c1,external-dns/resource=service/nsm/registry\""));
        zone = apply(first.journal(), zone, add("gone.mesh.example.", Type.A, "192.0.2.1"));
        Update delete = new Update(ZONE);
        delete.delete(Name.fromString("gone.mesh.example."));
        zone = apply(first.journal(), zone, delete);
        first.journal().close();

        ZoneJournal.Loaded second = ZoneJournal.open(dir, ZONE);
        assertFalse(second.damaged());
        assertEquals(6, second.zone().soa().getSerial(), "five updates after serial 1");
        assertEquals(zone.records(), second.zone().records());
        assertTrue(second.zone().rrset(Name.fromString("gone.mesh.example."), Type.A).isEmpty());
        second.journal().close();
        String text = Files.readString(ZoneJournal.fileFor(dir, ZONE));
        assertEquals(1, text.lines().filter(l -> l.startsWith("T ")).count(), "compacted into one base block at load");
    }

    @Test
    void aDamagedTailIsDroppedAndTheLastGoodStateKept() throws Exception {
        ZoneJournal.Loaded first = ZoneJournal.open(dir, ZONE);
        ZoneData good = apply(first.journal(), first.zone(), add("kept.mesh.example.", Type.A, "192.0.2.1"));
        apply(first.journal(), good, add("lost.mesh.example.", Type.A, "192.0.2.2"));
        first.journal().close();
        Path file = ZoneJournal.fileFor(dir, ZONE);
        List<String> lines = Files.readAllLines(file);
        // A crash in the middle of the last write: the end line of the last block is cut short.
        String last = lines.get(lines.size() - 1);
        lines.set(lines.size() - 1, last.substring(0, last.length() - 3));
        Files.write(file, lines);
        Files.writeString(file, "+ garbage that is not a record\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);

        ZoneJournal.Loaded second = ZoneJournal.open(dir, ZONE);
        assertTrue(second.damaged());
        assertEquals(good.records(), second.zone().records());
        assertTrue(second.zone().rrset(Name.fromString("lost.mesh.example."), Type.A).isEmpty());
        ZoneData after = apply(second.journal(), second.zone(), add("new.mesh.example.", Type.A, "192.0.2.3"));
        second.journal().close();

        ZoneJournal.Loaded third = ZoneJournal.open(dir, ZONE);
        assertFalse(third.damaged(), "the damaged tail was cut off when the journal was compacted");
        assertEquals(after.records(), third.zone().records());
        third.journal().close();
    }

    @Test
    void aJournalWithoutAnyCompleteBlockStartsEmptyAndKeepsTheFileAside() throws Exception {
        Files.createDirectories(dir);
        Files.writeString(ZoneJournal.fileFor(dir, ZONE), "T 1\n+ mesh.example.\t60\tIN\tA\t192.0.2.1\n");
        ZoneJournal.Loaded loaded = ZoneJournal.open(dir, ZONE);
        assertTrue(loaded.damaged());
        assertEquals(1, loaded.zone().soa().getSerial());
        loaded.journal().close();
        try (var files = Files.list(dir)) {
            assertTrue(files.anyMatch(p -> p.getFileName().toString().contains(".damaged-")));
        }
    }

    @Test
    void ttlChangesAndRecordCaseSurviveTheRoundTrip() throws Exception {
        ZoneJournal.Loaded first = ZoneJournal.open(dir, ZONE);
        ZoneData zone = apply(first.journal(), first.zone(), add("Web.mesh.example.", Type.CNAME, "Target.Elsewhere.example."));
        Update ttl = new Update(ZONE);
        ttl.add(Name.fromString("Web.mesh.example."), Type.CNAME, 5, "Target.Elsewhere.example.");
        zone = apply(first.journal(), zone, ttl);
        first.journal().close();
        ZoneJournal.Loaded second = ZoneJournal.open(dir, ZONE);
        Record cname = second.zone().rrset(Name.fromString("web.mesh.example."), Type.CNAME).get(0);
        assertEquals(5, cname.getTTL());
        assertEquals("Target.Elsewhere.example.", cname.rdataToString());
        assertEquals(zone.records(), second.zone().records());
        second.journal().close();
    }

    /** A block written by an older server that the journal cannot read back (TTL 2^32-1): skipped, the later blocks kept. */
    @Test
    void aBadBlockInTheMiddleIsSkippedAndEveryLaterBlockReplayed() throws Exception {
        ZoneJournal.Loaded first = ZoneJournal.open(dir, ZONE);
        ZoneData zone = apply(first.journal(), first.zone(), add("before.mesh.example.", Type.A, "192.0.2.1"));
        first.journal().append(List.of(), List.of(Record.fromString(Name.fromString("huge.mesh.example."), Type.A,
                org.xbill.DNS.DClass.IN, 60, "192.0.2.9", Name.root)));
        zone = apply(first.journal(), zone, add("after.mesh.example.", Type.A, "192.0.2.2"));
        zone = apply(first.journal(), zone, add("later.mesh.example.", Type.TXT, "\"kept\""));
        first.journal().close();
        Path file = ZoneJournal.fileFor(dir, ZONE);
        String text = Files.readString(file);
        // Rewrite the middle block with the TTL an old server stored, and a CRC that matches it.
        String[] blocks = text.split("(?=\nT )");
        int middle = java.util.stream.IntStream.range(0, blocks.length).filter(i -> blocks[i].contains("huge.")).findFirst().orElseThrow();
        String bad = blocks[middle].replace("\t60\tIN\tA\t192.0.2.9", "\t4294967295\tIN\tA\t192.0.2.9");
        java.util.List<String> lines = new java.util.ArrayList<>(bad.lines().filter(l -> !l.isEmpty()).toList());
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        for (String l : lines.subList(0, lines.size() - 1)) {
            crc.update((l + "\n").getBytes(StandardCharsets.UTF_8));
        }
        String seq = lines.get(0).substring(2);
        lines.set(lines.size() - 1, "E " + seq + " " + Long.toHexString(crc.getValue()));
        blocks[middle] = "\n" + String.join("\n", lines);
        Files.writeString(file, String.join("", blocks));

        ZoneJournal.Loaded second = ZoneJournal.open(dir, ZONE);
        assertTrue(second.damaged());
        assertEquals(1, second.skipped());
        assertEquals(zone.records(), second.zone().records(), "every block after the bad one replayed");
        assertTrue(Files.readString(second.aside()).contains("4294967295"), "the original is kept aside before compaction");
        second.journal().close();
        ZoneJournal.Loaded third = ZoneJournal.open(dir, ZONE);
        assertFalse(third.damaged());
        assertEquals(zone.records(), third.zone().records(), "the compaction kept the later blocks");
        third.journal().close();
    }

    /** What arrives from the wire: an UPDATE adding NULL and an unknown type with RDLENGTH 0, and an A with none. */
    @Test
    void emptyRdataIsStoredWhereLegalAndRefusedWhereNot() throws Exception {
        ZoneJournal.Loaded first = ZoneJournal.open(dir, ZONE);
        Update u = new Update(ZONE);
        u.add(Record.newRecord(Name.fromString("n.mesh.example."), Type.NULL, org.xbill.DNS.DClass.IN, 60, new byte[0]));
        u.add(Record.newRecord(Name.fromString("u.mesh.example."), 65281, org.xbill.DNS.DClass.IN, 60, new byte[0]));
        ZoneData zone = apply(first.journal(), first.zone(), new org.xbill.DNS.Message(u.toWire()));
        first.journal().close();
        ZoneJournal.Loaded second = ZoneJournal.open(dir, ZONE);
        assertFalse(second.damaged());
        assertEquals(zone.records(), second.zone().records());
        assertEquals(1, second.zone().rrset(Name.fromString("u.mesh.example."), 65281).size());
        second.journal().close();

        byte[] wire = add("a.mesh.example.", Type.A, "192.0.2.1").toWire();
        // Cut the A record's RDATA: RDLENGTH 0, as a delete would carry it, but with class IN.
        byte[] cut = java.util.Arrays.copyOf(wire, wire.length - 4);
        cut[cut.length - 1] = 0;
        cut[cut.length - 2] = 0;
        assertEquals(Rcode.FORMERR, UpdateProcessor.apply(second.zone(), new org.xbill.DNS.Message(cut)).rcode());
    }

    /** Found by fuzzing: dnsjava parses a WKS record with an empty port bitmap but cannot encode it again. */
    @Test
    void aRecordDnsjavaCannotReencodeIsFormerrNotAServerError() throws Exception {
        Update u = new Update(ZONE);
        u.add(Record.newRecord(Name.fromString("w.mesh.example."), 65280, org.xbill.DNS.DClass.IN, 60, new byte[] {(byte) 192, 0, 2, 1, 6}));
        byte[] wire = u.toWire();
        // The type of the one update record (the last one in the message) becomes WKS (11).
        int typeAt = wire.length - 5 - 10;
        assertEquals(0xFF, wire[typeAt] & 0xFF);
        wire[typeAt] = 0;
        wire[typeAt + 1] = 11;
        UpdateProcessor.Result r = UpdateProcessor.apply(ZoneData.initial(ZONE), new org.xbill.DNS.Message(wire));
        assertEquals(Rcode.FORMERR, r.rcode());
    }
}
