package io.meshdns.bench.discovery;

import io.meshdns.model.CatalogEntry;
import io.meshdns.model.ObjectRef;
import io.meshdns.model.WatchEvent;
import io.meshdns.model.WireFormat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

/**
 * Follows discovery-service's {@code /v1/watch} NDJSON stream as a dns-service would (its own
 * connection, bearer token) and keeps every delta line: when it arrived, its size on the wire (plain,
 * gzip of the line alone, and what the line costs on a stream compressed as a whole), and the refs it
 * carries, so each API event can be matched with the delta that announced it.
 */
final class WatchRecorder implements AutoCloseable {
    /** One delta line. {@code bytes} excludes the newline. */
    record DeltaLine(long arrivedNanos, long fromVersion, long toVersion, int bytes, int gzipBytes, int streamBytes,
                     Set<ObjectRef> refs, String shape) {
    }

    private final List<DeltaLine> deltas = new ArrayList<>();
    private final Map<ObjectRef, DeltaLine> firstSeen = new HashMap<>();
    private final Deflater stream = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
    private final byte[] deflateBuffer = new byte[1 << 16];
    private long version = -1;
    private int snapshotBytes = -1;
    private volatile Throwable failure;
    private volatile boolean closed;
    private final Thread reader;
    private volatile InputStream body;

    WatchRecorder(String discoveryUrl, String token) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(discoveryUrl + "/v1/watch"))
                .header("Authorization", "Bearer " + token).build();
        reader = new Thread(() -> {
            try {
                InputStream in = ServiceJar.http().send(request, HttpResponse.BodyHandlers.ofInputStream()).body();
                body = in;
                ByteArrayOutputStream line = new ByteArrayOutputStream(1 << 16);
                byte[] chunk = new byte[1 << 16];
                int n;
                while ((n = in.read(chunk)) > 0) {
                    long now = System.nanoTime();
                    int from = 0;
                    for (int i = 0; i < n; i++) {
                        if (chunk[i] != '\n') continue;
                        line.write(chunk, from, i - from);
                        onLine(line.toByteArray(), now);
                        line.reset();
                        from = i + 1;
                    }
                    line.write(chunk, from, n - from);
                }
            } catch (Throwable t) {
                if (!closed) failure = t;
            }
            synchronized (this) {
                if (!closed && failure == null) failure = new IllegalStateException("/v1/watch ended");
                notifyAll();
            }
        }, "watch-recorder");
        reader.setDaemon(true);
        reader.start();
    }

    private void onLine(byte[] line, long arrived) throws IOException {
        if (line.length == 0) return;
        WatchEvent e = WireFormat.decode(line, WatchEvent.class);
        synchronized (this) {
            if (WatchEvent.SNAPSHOT.equals(e.type())) {
                snapshotBytes = line.length;
            } else if (WatchEvent.DELTA.equals(e.type())) {
                Set<ObjectRef> refs = new java.util.TreeSet<>();
                // The shape names what the line carries, e.g. "+Service +EndpointSlice" or "-Service".
                java.util.TreeSet<String> shape = new java.util.TreeSet<>();
                for (CatalogEntry u : e.delta().upserts()) {
                    refs.add(u.ref());
                    shape.add("+" + u.getClass().getSimpleName());
                }
                for (ObjectRef r : e.delta().deletes()) {
                    refs.add(r);
                    shape.add("-" + kindName(r));
                }
                if (e.delta().clusters() != null) shape.add("clusters");
                DeltaLine d = new DeltaLine(arrived, e.delta().fromVersion(), e.delta().toVersion(), line.length, gzip(line).length,
                        streamed(line), Set.copyOf(refs), String.join(" ", shape));
                deltas.add(d);
                for (ObjectRef r : refs) firstSeen.putIfAbsent(r, d);
            }
            version = Math.max(version, e.version());
            notifyAll();
        }
    }

    /** SERVICE_ENTRY -> ServiceEntry, as the upserts' type names read. */
    private static String kindName(ObjectRef r) {
        StringBuilder b = new StringBuilder();
        for (String part : r.kind().name().split("_")) b.append(part.charAt(0)).append(part.substring(1).toLowerCase(java.util.Locale.ROOT));
        return b.toString();
    }

    /** Bytes this line adds to one DEFLATE stream that carries every line, flushed after each (what a gzip-encoded watch would send). */
    private int streamed(byte[] line) {
        stream.setInput(line);
        int total = 0;
        int n;
        while ((n = stream.deflate(deflateBuffer, 0, deflateBuffer.length, Deflater.SYNC_FLUSH)) > 0) total += n;
        return total;
    }

    static byte[] gzip(byte[] data) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(data.length / 2 + 64);
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(data);
        }
        return out.toByteArray();
    }

    synchronized long version() {
        return version;
    }

    synchronized int snapshotBytes() {
        return snapshotBytes;
    }

    synchronized List<DeltaLine> deltas() {
        return List.copyOf(deltas);
    }

    /** Forgets which refs were seen, so a ref changed again is matched with its next delta. */
    synchronized void forget(Iterable<ObjectRef> refs) {
        for (ObjectRef r : refs) firstSeen.remove(r);
    }

    /** The first delta (since the last {@link #forget}) carrying {@code ref}, waiting up to {@code timeoutMillis}; null on timeout. */
    synchronized DeltaLine awaitRef(ObjectRef ref, long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (!firstSeen.containsKey(ref)) {
            check();
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) return null;
            wait(left);
        }
        return firstSeen.get(ref);
    }

    /** Waits until the stream has delivered its first line (the snapshot). */
    synchronized void awaitVersion(long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (version < 0) {
            check();
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) throw new IllegalStateException("no line on /v1/watch within " + timeoutMillis + " ms");
            wait(left);
        }
    }

    private void check() {
        if (failure != null) throw new IllegalStateException("/v1/watch failed", failure);
    }

    @Override
    public void close() throws IOException {
        closed = true;
        InputStream in = body;
        if (in != null) in.close();
        reader.interrupt();
        stream.end();
    }
}
