package io.meshdns.dns.dynamic;

import org.jboss.logging.Logger;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.zip.CRC32;

/**
 * The append-only journal of one dynamic zone: {@code <journal-dir>/<zone>.journal}, plain text.
 * Each applied UPDATE is one transaction block, written and fsync'ed before the UPDATE is answered:
 * <pre>
 * T 42
 * - mesh.example.	300	IN	A	192.0.2.1
 * + mesh.example.	300	IN	A	192.0.2.2
 * E 42 1c291ca3
 * </pre>
 * ({@code -} removed, {@code +} added, the CRC-32 covers the block's lines). The first block is
 * the base: the whole zone. Loading replays every complete block; a damaged block (a bad disk, a
 * record the journal cannot read back) is skipped and reported and the replay goes on, and an
 * unterminated last block (a crash during a write) is dropped; the original file is then kept aside.
 * The journal is compacted (rewritten as one base block, temp file + fsync + rename)
 * after loading and when it has grown larger than the zone, so it never grows without bound.
 */
public final class ZoneJournal implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ZoneJournal.class);
    private static final String HEADER = "; meshdns dynamic zone journal v1, zone ";
    private static final int MIN_COMPACT_TRANSACTIONS = 1000;

    private final Path file;
    private final Name origin;
    private FileChannel channel;
    private long sequence;
    private int transactionsSinceBase;

    private ZoneJournal(Path file, Name origin) {
        this.file = file;
        this.origin = origin;
    }

    /** {@code <dir>/<zone without trailing dot, lower case>.journal}. */
    public static Path fileFor(Path dir, Name origin) {
        String name = origin.equals(Name.root) ? "root" : origin.toString(true).toLowerCase(Locale.ROOT);
        return dir.resolve(name + ".journal");
    }

    /**
     * What {@link #open} found: the zone, how many blocks were replayed and skipped, and whether
     * anything in the file could not be used (then the original is kept as {@code aside}).
     */
    public record Loaded(ZoneJournal journal, ZoneData zone, int transactions, int skipped, boolean damaged, Path aside) {
    }

    /**
     * Loads the zone from its journal (creating the journal with {@link ZoneData#initial} when there
     * is none), compacts it, and opens it for appending. When the replay skipped or dropped anything
     * the file is first copied aside ({@code <file>.damaged-<millis>}), so the compaction never makes
     * a loss permanent: what could not be read is still on disk for an operator.
     */
    public static Loaded open(Path dir, Name origin) throws IOException {
        Files.createDirectories(dir);
        ZoneJournal journal = new ZoneJournal(fileFor(dir, origin), origin);
        ZoneData zone;
        int transactions = 0;
        int skipped = 0;
        boolean damaged = false;
        Path aside = null;
        if (Files.exists(journal.file)) {
            Replay replay = replay(origin, Files.readString(journal.file, StandardCharsets.UTF_8), journal.file);
            zone = replay.zone;
            transactions = replay.transactions;
            skipped = replay.skipped;
            damaged = replay.damaged;
            journal.sequence = replay.lastSequence;
            if (damaged) {
                aside = journal.file.resolveSibling(journal.file.getFileName() + ".damaged-" + System.currentTimeMillis());
                Files.copy(journal.file, aside, StandardCopyOption.REPLACE_EXISTING);
                LOG.errorf("journal %s: %d transactions replayed, %d skipped; the original is kept as %s",
                        journal.file, transactions, skipped, aside);
            }
        } else {
            zone = ZoneData.initial(origin);
        }
        journal.compact(zone);
        return new Loaded(journal, zone, transactions, skipped, damaged, aside);
    }

    record Replay(ZoneData zone, int transactions, int skipped, long lastSequence, boolean damaged) {
    }

    /**
     * Replays every complete, intact block in order. A block that cannot be used (a wrong CRC, a line
     * that does not parse, a record the zone cannot take) is skipped and reported, and the replay goes
     * on with the next block: one bad block must not take every later acknowledged update with it. A
     * last block without its end line (a crash during the write; never acknowledged) is dropped. When
     * the base block itself is unusable the later blocks are replayed onto {@link ZoneData#initial}.
     */
    static Replay replay(Name origin, String text, Path source) throws IOException {
        ZoneData zone = null;
        boolean baseSeen = false;
        int transactions = 0;
        int skipped = 0;
        boolean damaged = false;
        long lastSequence = 0;
        BufferedReader in = new BufferedReader(new StringReader(text));
        List<Record> removed = new ArrayList<>();
        List<Record> added = new ArrayList<>();
        CRC32 crc = new CRC32();
        String open = null; // the T line's sequence text while a block is open
        int openLine = 0;
        String problem = null;
        int lineNo = 0;
        String line;
        while ((line = in.readLine()) != null) {
            lineNo++;
            if (line.isEmpty() || line.startsWith(";")) {
                continue;
            }
            char kind = line.charAt(0);
            if (kind == 'T') {
                if (open != null) {
                    skipped++;
                    damaged = true;
                    LOG.errorf("journal %s: transaction at line %d has no end line; skipped", source, openLine);
                }
                open = line.length() > 2 ? line.substring(2).trim() : "";
                openLine = lineNo;
                problem = null;
                removed.clear();
                added.clear();
                crc.reset();
                update(crc, line);
            } else if (open == null) {
                damaged = true;
                LOG.errorf("journal %s: line %d is outside a transaction; ignored", source, lineNo);
            } else if (kind == '-' || kind == '+') {
                update(crc, line);
                if (problem == null) {
                    try {
                        (kind == '-' ? removed : added).add(parseRecord(line.substring(2), origin));
                    } catch (IOException | RuntimeException e) {
                        problem = "line " + lineNo + ": " + e.getMessage();
                    }
                }
            } else if (kind == 'E') {
                String[] parts = line.split(" ");
                long sequence = -1;
                try {
                    sequence = Long.parseLong(open);
                    if (parts.length != 3 || Long.parseLong(parts[1]) != sequence || Long.parseLong(parts[2], 16) != crc.getValue()) {
                        problem = "fails its checksum";
                    }
                } catch (NumberFormatException e) {
                    problem = "bad sequence or checksum: " + e.getMessage();
                }
                boolean base = !baseSeen;
                baseSeen = true;
                if (problem == null) {
                    try {
                        if (zone == null) {
                            zone = base ? ZoneData.of(origin, added) : UpdateProcessor.replay(ZoneData.initial(origin), removed, added);
                        } else {
                            zone = UpdateProcessor.replay(zone, removed, added);
                        }
                    } catch (RuntimeException e) {
                        problem = "cannot be applied: " + e.getMessage();
                    }
                }
                if (problem == null) {
                    transactions++;
                    lastSequence = Math.max(lastSequence, sequence);
                } else {
                    skipped++;
                    damaged = true;
                    LOG.errorf("journal %s: transaction %s at line %d skipped (%s)", source, open, openLine, problem);
                }
                open = null;
            } else {
                update(crc, line);
                if (problem == null) {
                    problem = "line " + lineNo + ": unknown line kind '" + kind + "'";
                }
            }
        }
        if (open != null) {
            damaged = true;
            LOG.errorf("journal %s: the last transaction (line %d) has no end line (an interrupted write, never acknowledged); dropped",
                    source, openLine);
        }
        if (zone == null) {
            if (baseSeen || damaged) {
                LOG.errorf("journal %s: no usable base transaction; zone %s starts from its initial SOA and NS", source, origin);
            }
            zone = ZoneData.initial(origin);
        }
        return new Replay(zone, transactions, skipped, lastSequence, damaged);
    }

    private static void update(CRC32 crc, String line) {
        crc.update(line.getBytes(StandardCharsets.UTF_8));
        crc.update('\n');
    }

    /** Parses dnsjava's one-line presentation form: name, TTL, class, type, RDATA. */
    static Record parseRecord(String text, Name origin) throws IOException {
        return JournalCodec.decode(text, origin);
    }

    /** Appends one transaction and forces it to disk; returns after the data is durable. */
    public synchronized void append(List<Record> removed, List<Record> added) throws IOException {
        String block = block(++sequence, removed, added);
        ByteBuffer buffer = ByteBuffer.wrap(block.getBytes(StandardCharsets.UTF_8));
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
        channel.force(false);
        transactionsSinceBase++;
    }

    /** True when replaying the journal costs more than rewriting it. */
    public synchronized boolean wantsCompaction(ZoneData zone) {
        return transactionsSinceBase > Math.max(MIN_COMPACT_TRANSACTIONS, zone.size());
    }

    /** Rewrites the journal as one base transaction holding {@code zone}: temp file, fsync, atomic rename. */
    public synchronized void compact(ZoneData zone) throws IOException {
        if (channel != null) {
            channel.close();
        }
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        String content = HEADER + origin + "\n" + block(++sequence, List.of(), zone.records());
        try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            ByteBuffer buffer = ByteBuffer.wrap(content.getBytes(StandardCharsets.UTF_8));
            while (buffer.hasRemaining()) {
                out.write(buffer);
            }
            out.force(true);
        }
        try {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        }
        syncDirectory(file.getParent());
        channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        transactionsSinceBase = 0;
    }

    private static String block(long seq, List<Record> removed, List<Record> added) {
        StringBuilder sb = new StringBuilder();
        CRC32 crc = new CRC32();
        String t = "T " + seq;
        sb.append(t).append('\n');
        update(crc, t);
        for (Record r : removed) {
            String l = "- " + JournalCodec.encode(r);
            sb.append(l).append('\n');
            update(crc, l);
        }
        for (Record r : added) {
            String l = "+ " + JournalCodec.encode(r);
            sb.append(l).append('\n');
            update(crc, l);
        }
        sb.append("E ").append(seq).append(' ').append(Long.toHexString(crc.getValue())).append('\n');
        return sb.toString();
    }

    /** Makes the rename durable (POSIX); not possible on every platform, so failures are ignored. */
    private static void syncDirectory(Path dir) {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            LOG.debugf("cannot fsync directory %s: %s", dir, e.getMessage());
        }
    }

    public Path file() {
        return file;
    }

    @Override
    public synchronized void close() throws IOException {
        if (channel != null) {
            channel.close();
            channel = null;
        }
    }
}
