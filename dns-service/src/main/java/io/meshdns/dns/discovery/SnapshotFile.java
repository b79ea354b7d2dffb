package io.meshdns.dns.discovery;

import io.meshdns.model.CatalogSnapshot;
import io.meshdns.model.WireFormat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/** The persisted snapshot: plain {@link WireFormat} JSON of a {@link CatalogSnapshot}, replaced atomically. */
public final class SnapshotFile {
    private final Path path;

    public SnapshotFile(Path path) {
        this.path = path;
    }

    public Path path() {
        return path;
    }

    /** The stored snapshot, or null when there is no file. A corrupt file throws (the caller logs and ignores it). */
    public CatalogSnapshot load() throws IOException {
        if (!Files.isRegularFile(path)) return null;
        return WireFormat.decode(Files.readAllBytes(path), CatalogSnapshot.class);
    }

    /**
     * Writes to a temporary file in the same directory, forces it to disk, then renames it over the old one:
     * a crash leaves either the old or the new snapshot, never half of one.
     */
    public void write(CatalogSnapshot snapshot) throws IOException {
        Path dir = path.toAbsolutePath().getParent();
        if (dir != null) Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, "." + path.getFileName() + ".", ".tmp");
        try {
            try (var ch = java.nio.channels.FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                ch.write(java.nio.ByteBuffer.wrap(WireFormat.encode(snapshot)));
                ch.force(true);
            }
            Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
