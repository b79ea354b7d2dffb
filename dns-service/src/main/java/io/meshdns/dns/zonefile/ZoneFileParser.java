package io.meshdns.dns.zonefile;

import io.meshdns.dns.snapshot.ZoneContent;
import org.xbill.DNS.Master;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads an RFC 1035 master file into the {@link ZoneContent} of the zone its SOA defines (pure,
 * apart from reading the file). Problems come back as {@link ZoneFileException} with file and line.
 */
public final class ZoneFileParser {

    public static ZoneContent parse(Path file) throws ZoneFileException {
        if (!Files.isRegularFile(file)) {
            throw new ZoneFileException(file + ": no such file");
        }
        try (Master master = new Master(file.toString())) {
            return toContent(file.toString(), master);
        } catch (IOException | RuntimeException e) {
            // dnsjava's master-file reader throws runtime exceptions too (found by ZoneFileFuzz: '@' without $ORIGIN,
            // RelativeNameException; an empty quoted owner name, StringIndexOutOfBoundsException): an unreadable zone
            // file either way, reported in the same one line as a syntax error.
            throw new ZoneFileException(withFile(file.toString(), String.valueOf(e.getMessage())), e);
        }
    }

    /** Parses zone text (tests and tools); {@code name} only labels error messages. */
    public static ZoneContent parse(String name, String text) throws ZoneFileException {
        InputStream in = new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
        try (Master master = new Master(in)) {
            return toContent(name, master);
        } catch (IOException | RuntimeException e) {
            throw new ZoneFileException(withFile(name, String.valueOf(e.getMessage())), e);
        }
    }

    private static ZoneContent toContent(String file, Master master) throws IOException, ZoneFileException {
        List<Record> records = new ArrayList<>();
        SOARecord soa = null;
        for (Record r = master.nextRecord(); r != null; r = master.nextRecord()) {
            try {
                r.toWire(Section.ANSWER); // served as is: a record the reader accepts but cannot encode is refused here
            } catch (RuntimeException e) {
                // Found by ZoneFileFuzz: an HTTPS alpn value over 255 bytes parses and then fails every answer.
                throw new ZoneFileException(file + ": " + r.getName() + " " + Type.string(r.getType())
                        + " cannot be encoded: " + e.getMessage(), e);
            }
            if (r.getType() == Type.SOA) {
                if (soa != null) {
                    throw new ZoneFileException(file + ": more than one SOA record (" + soa.getName() + ", "
                            + r.getName() + "); one file holds one zone");
                }
                soa = (SOARecord) r;
            }
            records.add(r);
        }
        if (soa == null) {
            throw new ZoneFileException(file + ": no SOA record; the SOA's owner name defines the zone");
        }
        Name origin = soa.getName();
        for (Record r : records) {
            if (!r.getName().subdomain(origin)) {
                throw new ZoneFileException(file + ": " + r.getName() + " is outside the zone " + origin);
            }
        }
        return new ZoneContent(origin, records, true);
    }

    /** dnsjava's tokenizer already says "file:line: problem" for a named file; keep the file name otherwise. */
    private static String withFile(String file, String message) {
        if (message == null) {
            return file + ": unreadable";
        }
        if (message.startsWith(file)) {
            return message;
        }
        String shortName = Path.of(file).getFileName().toString();
        if (message.startsWith(shortName + ":")) { // dnsjava names the file without its directory
            return file + message.substring(shortName.length());
        }
        return file + ": " + message;
    }

    private ZoneFileParser() {
    }
}
