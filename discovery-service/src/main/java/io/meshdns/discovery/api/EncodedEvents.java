package io.meshdns.discovery.api;

import io.meshdns.model.Catalog;
import io.meshdns.model.CatalogDelta;
import io.meshdns.model.WatchEvent;
import io.meshdns.model.WireFormat;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.Unpooled;
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

    private volatile String failure;

    /** Why the newest snapshot could not be encoded (readiness is DOWN then); null once one is. */
    public String failure() {
        return failure;
    }

    public Snapshot snapshot(Catalog catalog) {
        try {
            Snapshot s = encodeSnapshot(catalog);
            failure = null;
            return s;
        } catch (OutOfMemoryError | RuntimeException e) {
            // The half-built buffers are garbage once this returns; the process serves on (deltas, status).
            failure = "snapshot of version " + catalog.version() + " cannot be encoded: " + e;
            throw e;
        }
    }

    private Snapshot encodeSnapshot(Catalog catalog) {
        Snapshot s = snapshot;
        if (s != null && s.version() == catalog.version()) return s;
        synchronized (this) {
            s = snapshot;
            if (s != null && s.version() == catalog.version()) return s;
            // Encoded straight into a buffer sized from the previous version (no doubling copies, no
            // final toByteArray copy); the JSON and the watch line share those bytes: at 100k
            // Services (23 MB of JSON) three full copies and the encoder's growth did not fit a 256 MB heap.
            Snapshot previous = snapshot;
            int estimate = previous == null ? Math.max(64 * 1024, catalog.entries().size() * 256)
                    : previous.json().length() + previous.json().length() / 8;
            ByteBuf out = Unpooled.buffer(estimate);
            try (ByteBufOutputStream stream = new ByteBufOutputStream(out)) {
                WireFormat.mapper().writeValue((java.io.OutputStream) stream, catalog.toSnapshot());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            byte[] prefix = ("{\"type\":\"" + WatchEvent.SNAPSHOT + "\",\"version\":" + catalog.version() + ",\"snapshot\":")
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8);
            Buffer line = Buffer.buffer(Unpooled.wrappedUnmodifiableBuffer(Unpooled.wrappedBuffer(prefix), out.duplicate(),
                    Unpooled.wrappedBuffer(new byte[] {'}', '\n'})));
            s = new Snapshot(catalog.version(), Buffer.buffer(out), Buffer.buffer(gzip(out)), line);
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
        return gzip(Unpooled.wrappedBuffer(data));
    }

    static byte[] gzip(ByteBuf data) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, data.readableBytes() / 16));
        try (GZIPOutputStream gz = new GZIPOutputStream(out, 8192)) {
            data.getBytes(data.readerIndex(), gz, data.readableBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
