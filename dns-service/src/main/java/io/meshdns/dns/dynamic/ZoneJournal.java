package io.meshdns.dns.dynamic;

import org.jboss.logging.Logger;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Type;

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
 * the base: the whole zone. Loading replays every complete block; an incomplete or damaged block
 * (a crash during a write, a bad disk) ends the replay: it is logged, and the zone keeps the last
 * good state. The journal is compacted (rewritten as one base block, temp file + fsync + rename)
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

    /** What {@link #open} found: the zone, and whether a damaged tail was dropped. */
    public record Loaded(ZoneJournal journal, ZoneData zone, int transactions, boolean damaged) {
    }

    /**
     * Loads the zone from its journal (creating the journal with {@link ZoneData#initial} when there
     * is none), compacts it, and opens it for appending.
     */
    public static Loaded open(Path dir, Name origin) throws IOException {
        Files.createDirectories(dir);
        ZoneJournal journal = new ZoneJournal(fileFor(dir, origin), origin);
        ZoneData zone;
        int transactions = 0;
        boolean damaged = false;
        if (Files.exists(journal.file)) {
            Replay replay = replay(origin, Files.readString(journal.file, StandardCharsets.UTF_8), journal.file);
            zone = replay.zone;
            transactions = replay.transactions;
            damaged = replay.damaged;
            journal.sequence = replay.lastSequence;
        } else {
            zone = ZoneData.initial(origin);
        }
        journal.compact(zone);
        return new Loaded(journal, zone, transactions, damaged);
    }

    private record Replay(ZoneData zone, int transactions, long lastSequence, boolean damaged) {
    }

    static Replay replay(Name origin, String text, Path source) throws IOException {
        ZoneData zone = null;
        int transactions = 0;
        long lastSequence = 0;
        BufferedReader in = new BufferedReader(new StringReader(text));
        List<Record> removed = new ArrayList<>();
        List<Record> added = new ArrayList<>();
        CRC32 crc = new CRC32();
        long open = -1;
        int lineNo = 0;
        String line;
        try {
            while ((line = in.readLine()) != null) {
                lineNo++;
                if (line.isEmpty() || line.startsWith(";")) {
                    continue;
                }
                char kind = line.charAt(0);
                if (kind == 'T') {
                    if (open >= 0) {
                        throw new IOException("transaction " + open + " has no end");
                    }
                    open = Long.parseLong(line.substring(2).trim());
                    removed.clear();
                    added.clear();
                    crc.reset();
                    update(crc, line);
                } else if (kind == '-' || kind == '+') {
                    if (open < 0) {
                        throw new IOException("record outside a transaction");
                    }
                    update(crc, line);
                    (kind == '-' ? removed : added).add(parseRecord(line.substring(2), origin));
                } else if (kind == 'E') {
                    String[] parts = line.split(" ");
                    if (open < 0 || parts.length != 3 || Long.parseLong(parts[1]) != open
                            || Long.parseLong(parts[2], 16) != crc.getValue()) {
                        throw new IOException("transaction " + open + " fails its checksum");
                    }
                    zone = zone == null ? ZoneData.of(origin, added) : UpdateProcessor.replay(zone, removed, added);
                    transactions++;
                    lastSequence = open;
                    open = -1;
                } else {
                    throw new IOException("unknown line kind '" + kind + "'");
                }
            }
            if (open >= 0) {
                throw new IOException("transaction " + open + " has no end (interrupted write)");
            }
        } catch (IOException | RuntimeException e) {
            LOG.errorf("journal %s: damaged at line %d (%s); keeping the last good state (%d transactions)",
                    source, lineNo, e.getMessage(), transactions);
            if (zone == null) {
                Path aside = source.resolveSibling(source.getFileName() + ".damaged-" + System.currentTimeMillis());
                Files.copy(source, aside, StandardCopyOption.REPLACE_EXISTING);
                LOG.errorf("journal %s: no complete base transaction; starting zone %s empty, damaged file kept as %s",
                        source, origin, aside);
                zone = ZoneData.initial(origin);
            }
            return new Replay(zone, transactions, lastSequence, true);
        }
        if (zone == null) {
            zone = ZoneData.initial(origin);
        }
        return new Replay(zone, transactions, lastSequence, false);
    }

    private static void update(CRC32 crc, String line) {
        crc.update(line.getBytes(StandardCharsets.UTF_8));
        crc.update('\n');
    }

    /** Parses dnsjava's one-line presentation form: name, TTL, class, type, RDATA. */
    static Record parseRecord(String text, Name origin) throws IOException {
        String[] f = text.split("\\s+", 5);
        if (f.length < 4) {
            throw new IOException("not a record: " + text);
        }
        Name name = Name.fromString(f[0], Name.root);
        long ttl = Long.parseLong(f[1]);
        int dclass = DClass.value(f[2]);
        int type = Type.value(f[3]);
        if (dclass < 0 || type < 0) {
            throw new IOException("bad class or type: " + text);
        }
        return Record.fromString(name, type, dclass, ttl, f.length == 5 ? f[4] : "", origin);
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
            String l = "- " + r;
            sb.append(l).append('\n');
            update(crc, l);
        }
        for (Record r : added) {
            String l = "+ " + r;
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
