package io.meshdns.dns.zonefile;

import io.meshdns.dns.snapshot.ZoneContent;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.function.Consumer;

/**
 * One zone file or hosts file of {@link FileSources}. {@link #start} loads it synchronously (a
 * broken file fails the start); {@link #checkForChange()} is polled and reloads when the file's
 * modification time or size changed. A reload that fails keeps serving the last good content.
 * Polling rather than WatchService: it also sees Kubernetes ConfigMap symlink swaps and works on
 * every file system.
 */
public final class WatchedFile {
    private static final Logger LOG = Logger.getLogger(WatchedFile.class);

    /** Reads a file into content; throws with file and line on a parse error. */
    @FunctionalInterface
    public interface Loader {
        ZoneContent load(Path file) throws ZoneFileException, IOException;
    }

    private final String kind;
    private final Path file;
    private final Loader loader;
    private Consumer<List<ZoneContent>> publish;
    private FileStamp lastStamp;

    public WatchedFile(String kind, Path file, Loader loader) {
        this.kind = kind;
        this.file = file;
        this.loader = loader;
    }

    public static WatchedFile zoneFile(Path file) {
        return new WatchedFile("zone-file", file, ZoneFileParser::parse);
    }

    public static WatchedFile hostsFile(Path file, long ttl) {
        return new WatchedFile("hosts-file", file,
                f -> HostsFileParser.parse(f.toString(), Files.readAllLines(f), ttl));
    }

    /** {@code zone-file:/path} or {@code hosts-file:/path}, as logs, the status page and explain name it. */
    public String id() {
        return kind + ":" + file;
    }

    public Path file() {
        return file;
    }

    /** Loads the file and hands its content to {@code publish}; a missing or broken file throws. */
    public synchronized void start(Consumer<List<ZoneContent>> publish) throws ZoneFileException, IOException {
        this.publish = publish;
        if (!Files.isRegularFile(file)) {
            throw new ZoneFileException(file + ": no such file");
        }
        FileStamp stamp = FileStamp.of(file);
        ZoneContent content = loader.load(file);
        lastStamp = stamp;
        publish.accept(List.of(content));
    }

    /** Reloads if the file changed since the last load. Called from a background thread. */
    public synchronized void checkForChange() {
        if (publish == null) {
            return;
        }
        FileStamp stamp;
        try {
            stamp = FileStamp.of(file);
        } catch (IOException e) {
            if (lastStamp != null) {
                LOG.warnf("%s: cannot read (%s); still serving the last loaded content", file, e.getMessage());
                lastStamp = null; // warn once, and reload as soon as it comes back
            }
            return;
        }
        if (stamp.equals(lastStamp)) {
            return;
        }
        try {
            ZoneContent content = loader.load(file);
            lastStamp = stamp;
            publish.accept(List.of(content));
            LOG.infof("%s: reloaded", file);
        } catch (ZoneFileException | IOException | RuntimeException e) {
            lastStamp = stamp; // do not retry a broken file until it changes again
            LOG.errorf("%s: reload failed, still serving the last good content: %s", file, e.getMessage());
        }
    }

    private record FileStamp(long modifiedNanos, long size, Object fileKey) {
        static FileStamp of(Path file) throws IOException {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            return new FileStamp(a.lastModifiedTime().to(java.util.concurrent.TimeUnit.NANOSECONDS), a.size(),
                    a.fileKey());
        }
    }
}
