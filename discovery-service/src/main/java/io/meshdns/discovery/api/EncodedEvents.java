package io.meshdns.discovery.api;

import io.meshdns.model.Catalog;
import io.meshdns.model.CatalogDelta;
import io.meshdns.model.WatchEvent;
import io.meshdns.model.WireFormat;
import io.vertx.core.buffer.Buffer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.GZIPOutputStream;

/**
 * Encodes each version once, however many clients want it: the snapshot (plain and gzip) and the
 * NDJSON lines of the last few deltas. Buffers handed out are shared: callers must not modify them.
 */
public final class EncodedEvents {
    /** The snapshot of one version as JSON, gzip-compressed JSON and an NDJSON watch line. */
    public record Snapshot(long version, Buffer json, Buffer gzip, Buffer line) {
    }

    private static final int DELTAS_KEPT = 64;
    private volatile Snapshot snapshot;
    private final Map<Long, Buffer> deltaLines = new LinkedHashMap<>(DELTAS_KEPT * 2, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Buffer> eldest) {
            return size() > DELTAS_KEPT;
        }
    };

    public Snapshot snapshot(Catalog catalog) {
        Snapshot s = snapshot;
        if (s != null && s.version() == catalog.version()) return s;
        synchronized (this) {
            s = snapshot;
            if (s != null && s.version() == catalog.version()) return s;
            byte[] json = WireFormat.encode(catalog.toSnapshot());
            // The watch line wraps the same bytes instead of encoding the catalog a second time.
            Buffer line = Buffer.buffer(json.length + 64)
                    .appendString("{\"type\":\"" + WatchEvent.SNAPSHOT + "\",\"version\":" + catalog.version() + ",\"snapshot\":")
                    .appendBytes(json).appendString("}\n");
            s = new Snapshot(catalog.version(), Buffer.buffer(json), Buffer.buffer(gzip(json)), line);
            // Keep only the newest: an older version is never asked for again.
            if (snapshot == null || snapshot.version() < s.version()) snapshot = s;
            return s;
        }
    }

    public synchronized Buffer deltaLine(CatalogDelta delta) {
        return deltaLines.computeIfAbsent(delta.toVersion(),
                v -> Buffer.buffer(WireFormat.encode(WatchEvent.of(delta))).appendByte((byte) '\n'));
    }

    public static Buffer heartbeatLine(long version) {
        return Buffer.buffer(WireFormat.encode(WatchEvent.heartbeat(version))).appendByte((byte) '\n');
    }

    static byte[] gzip(byte[] data) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, data.length / 4));
        try (GZIPOutputStream gz = new GZIPOutputStream(out, 8192)) {
            gz.write(data);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
