package io.meshdns.dns.zonefile;

import io.meshdns.dns.snapshot.ZoneContent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.Name;
import org.xbill.DNS.Type;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ZoneFileParserTest {
    @TempDir
    Path dir;

    @Test
    void theSoaDefinesTheZone() throws Exception {
        ZoneContent z = ZoneFileParser.parse("z", """
                $ORIGIN a.test.
                @ 60 IN SOA ns admin 1 2 3 4 5
                www 60 IN A 192.0.2.1
                """);
        assertEquals(Name.fromString("a.test."), z.origin());
        assertTrue(z.authoritative());
        assertEquals(2, z.records().size());
    }

    @Test
    void aSyntaxErrorNamesFileAndLine() throws Exception {
        Path file = dir.resolve("broken.zone");
        Files.writeString(file, "$ORIGIN a.test.\n@ 60 IN SOA ns admin 1 2 3 4 5\nwww 60 IN A not-an-ip\n");
        ZoneFileException e = assertThrows(ZoneFileException.class, () -> ZoneFileParser.parse(file));
        assertTrue(e.getMessage().contains(file.toString() + ":3"), e.getMessage());
    }

    @Test
    void missingSoaAndMissingFileAreErrors() throws Exception {
        Path file = dir.resolve("nosoa.zone");
        Files.writeString(file, "$ORIGIN a.test.\nwww 60 IN A 192.0.2.1\n");
        assertTrue(assertThrows(ZoneFileException.class, () -> ZoneFileParser.parse(file)).getMessage().contains("no SOA"));
        assertTrue(assertThrows(ZoneFileException.class, () -> ZoneFileParser.parse(dir.resolve("absent.zone")))
                .getMessage().contains("no such file"));
    }

    @Test
    void hostsFilesSkipBadLinesAndMakePtrs() {
        ZoneContent c = HostsFileParser.parse("hosts", List.of(
                "# comment", "127.0.0.1 localhost", "::1 localhost ip6-localhost", "garbage", "300.1.1.1 x",
                "192.0.2.9 one two # trailing comment"), 3600);
        assertFalse(c.authoritative());
        long a = c.records().stream().filter(r -> r.getType() == Type.A).count();
        long aaaa = c.records().stream().filter(r -> r.getType() == Type.AAAA).count();
        long ptr = c.records().stream().filter(r -> r.getType() == Type.PTR).count();
        assertEquals(3, a);
        assertEquals(2, aaaa);
        assertEquals(3, ptr);
    }

    /** Found by ZoneFileFuzz: without $ORIGIN dnsjava threw a RelativeNameException past the parser's error type. */
    @Test
    void aRelativeNameWithoutOriginIsAZoneFileError() {
        ZoneFileException e = org.junit.jupiter.api.Assertions.assertThrows(ZoneFileException.class,
                () -> ZoneFileParser.parse("rel.zone", "$TTL 300\n@ IN SOA ns hostmaster 1 2 3 4 5\n"));
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().startsWith("rel.zone: "), e.getMessage());
    }

    /** Found by ZoneFileFuzz: an empty quoted owner name made dnsjava's reader throw StringIndexOutOfBoundsException. */
    @Test
    void anEmptyQuotedOwnerIsAZoneFileError() {
        ZoneFileException e = org.junit.jupiter.api.Assertions.assertThrows(ZoneFileException.class,
                () -> ZoneFileParser.parse("q.zone", "$ORIGIN example.test.\n$TTL 150\n\"\" 60 IN A 192.0.2.1\n"));
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().startsWith("q.zone: "), e.getMessage());
    }

    /** Found by ZoneFileFuzz: an HTTPS alpn value of 300 bytes parses but cannot be encoded, so every answer failed. */
    @Test
    void aRecordThatCannotBeEncodedIsAZoneFileError() {
        String text = "$ORIGIN example.test.\n$TTL 150\n@ IN SOA ns hostmaster 1 2 3 4 5\n"
                + "d HTTPS 1 . alpn=" + "x".repeat(300) + "\n";
        ZoneFileException e = org.junit.jupiter.api.Assertions.assertThrows(ZoneFileException.class,
                () -> ZoneFileParser.parse("h.zone", text));
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().startsWith("h.zone: d.example.test. HTTPS"), e.getMessage());
    }
}
