package io.meshdns.dns.server;

import io.meshdns.dns.answer.ClientInfo;
import io.meshdns.dns.answer.Transport;
import io.meshdns.dns.metrics.DnsMetrics;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.NetSocket;
import io.vertx.core.parsetools.RecordParser;
import org.jboss.logging.Logger;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;

/**
 * The TCP listener (RFC 7766): two-byte length framing reassembled across segments, pipelined queries
 * answered as each completes (in any order), an idle timeout, and the limits that keep one client from
 * taking TCP down for the others:
 * <ul>
 *   <li>a connection whose answers the client does not read stops being read (its queued output
 *       beyond {@code tcp.output-buffer} pauses it, the kernel's window then stops the client); paused
 *       and not draining, it goes idle and the idle timeout closes it; output past four times the
 *       buffer (answers still in flight when it paused) closes it at once;</li>
 *   <li>at most {@link #MAX_IN_FLIGHT} queries of one connection are being answered at a time;</li>
 *   <li>global and per-client connection caps, checked at accept: at a cap, the least recently active
 *       <em>idle</em> connection (no query being answered, no answer queued) of that client, or of anyone for
 *       the global cap, is closed to make room (RFC 7766 section 6.2.3 lets a server close idle connections
 *       under pressure); the new connection is refused only when every candidate is busy;</li>
 *   <li>an absolute age, so trickling a byte per second to keep the idle timer alive (slowloris)
 *       holds a connection no longer than {@code tcp.max-connection-age}.</li>
 * </ul>
 */
final class TcpListener {
    private static final Logger LOG = Logger.getLogger(TcpListener.class);
    /** Queries of one connection being answered at once (forwarded ones wait for upstreams); more pause its reading. */
    static final int MAX_IN_FLIGHT = 128;

    /** One server per bind address, sharing this listener's caps and connection table. */
    private final java.util.List<NetServer> servers = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final ServerSettings.TcpLimits limits;
    private final ClientAcl acl;
    private final RequestProcessor processor;
    private final DnsMetrics metrics;
    private final ListenerMetrics listenerMetrics;
    private final Vertx vertx;
    private final ConcurrentMap<String, Integer> perClient = new ConcurrentHashMap<>();
    /** Every open connection, for choosing one to evict at a cap (scanned only then: at most max-connections). */
    private final java.util.Set<Connection> connections = ConcurrentHashMap.newKeySet();

    private TcpListener(Vertx vertx, ServerSettings settings, RequestProcessor processor,
                        DnsMetrics metrics, ListenerMetrics listenerMetrics) {
        this.vertx = vertx;
        this.limits = settings.tcp();
        this.acl = settings.acl();
        this.processor = processor;
        this.metrics = metrics;
        this.listenerMetrics = listenerMetrics;
    }

    /**
     * Listens on every bind address of {@code settings}, all on {@code port} (fixed by then: UDP chose it), one
     * server each; the connection caps count the connections of all of them together.
     */
    static TcpListener bind(Vertx vertx, ServerSettings settings, boolean reusePort, int port, RequestProcessor processor,
                            DnsMetrics metrics, ListenerMetrics listenerMetrics) throws Exception {
        TcpListener listener = new TcpListener(vertx, settings, processor, metrics, listenerMetrics);
        try {
            for (String address : settings.bindAddresses()) {
                NetServer server = vertx.createNetServer(new NetServerOptions()
                        .setIdleTimeout((int) settings.tcp().idleTimeout().toMillis())
                        .setIdleTimeoutUnit(TimeUnit.MILLISECONDS)
                        .setReusePort(reusePort)
                        .setTcpNoDelay(true)
                        .setTcpKeepAlive(false));
                server.connectHandler(listener::onConnection);
                listener.servers.add(server);
                server.listen(port, address).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
        } catch (Exception e) {
            listener.close();
            throw e;
        }
        return listener;
    }

    int port() {
        return servers.get(0).actualPort();
    }

    /** Stops accepting and closes every connection; returns when done (or after 5 s per server). */
    void close() {
        for (NetServer server : servers) {
            try {
                server.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
            } catch (Exception e) {
                LOG.debugf("tcp close: %s", e.getMessage());
            }
        }
    }

    private void onConnection(NetSocket socket) {
        String host = socket.remoteAddress().host();
        if (!acl.allows(host)) {
            metrics.aclDropped(true);
            socket.close();
            return;
        }
        String refusal = admit(host);
        if (refusal != null) {
            listenerMetrics.refused(refusal);
            socket.close();
            return;
        }
        connections.add(new Connection(socket, host));
    }

    /** Takes a slot for {@code host} (closing an idle connection at a cap), or says which cap refuses it. */
    private String admit(String host) {
        if (listenerMetrics.open().incrementAndGet() > limits.maxConnections()) {
            listenerMetrics.open().decrementAndGet();
            if (!evictIdle(null)) return ListenerMetrics.REFUSED_MAX_CONNECTIONS;
            listenerMetrics.open().incrementAndGet();
        }
        int mine = perClient.merge(host, 1, Integer::sum);
        if (mine > limits.maxConnectionsPerClient()) {
            perClient.computeIfPresent(host, (h, n) -> n <= 1 ? null : n - 1);
            if (!evictIdle(host)) {
                listenerMetrics.open().decrementAndGet();
                return ListenerMetrics.REFUSED_PER_CLIENT;
            }
            perClient.merge(host, 1, Integer::sum);
        }
        return null;
    }

    /**
     * Closes the least recently active idle connection (of {@code host}, or of anyone when null) and gives its
     * slot back at once; false when there is none. Its close runs on its own event loop.
     */
    private boolean evictIdle(String host) {
        while (true) {
            Connection oldest = null;
            for (Connection c : connections) {
                if ((host == null || c.host.equals(host)) && c.idle() && (oldest == null || c.lastActive < oldest.lastActive)) {
                    oldest = c;
                }
            }
            if (oldest == null) return false;
            if (oldest.evict()) return true; // else it went away or turned busy meanwhile: look again
        }
    }

    private void release(String host) {
        perClient.computeIfPresent(host, (h, n) -> n <= 1 ? null : n - 1);
        listenerMetrics.open().decrementAndGet();
    }

    /** One accepted connection; every field is touched only on its event loop. */
    private final class Connection {
        private final NetSocket socket;
        private final Context context;
        private final String host;
        private final ClientInfo client;
        private final RecordParser parser = RecordParser.newFixed(2);
        private final long ageTimer;
        private boolean expectLength = true;
        private int inFlight;
        private long queuedBytes;
        private boolean paused;
        private boolean closed;
        /** Read by other event loops choosing a connection to evict: written only on this one. */
        private volatile long lastActive = System.nanoTime();
        private volatile boolean busy;
        /** Its slot was given back (by an eviction, or by its close): exactly once. */
        private final java.util.concurrent.atomic.AtomicBoolean released = new java.util.concurrent.atomic.AtomicBoolean();

        Connection(NetSocket socket, String host) {
            this.socket = socket;
            this.context = vertx.getOrCreateContext();
            this.host = host;
            this.client = new ClientInfo(host, socket.remoteAddress().port(), host.indexOf(':') >= 0, Transport.TCP);
            parser.handler(this::onFrame);
            socket.handler(parser);
            socket.drainHandler(v -> updateReading());
            socket.exceptionHandler(e -> LOG.debugf("tcp %s: %s", host, e.getMessage()));
            socket.closeHandler(v -> {
                closed = true;
                vertx.cancelTimer(ageTimerId());
                connections.remove(this);
                if (released.compareAndSet(false, true)) release(host);
            });
            ageTimer = vertx.setTimer(limits.maxConnectionAge().toMillis(), id -> close(ListenerMetrics.CLOSED_AGE));
        }

        private long ageTimerId() {
            return ageTimer;
        }

        /** No query being answered and no answer waiting to be written: closing it loses nothing. */
        boolean idle() {
            return !busy && !released.get();
        }

        /** Gives the slot back now and closes the connection on its event loop; false if it was no longer idle. */
        boolean evict() {
            if (busy || !released.compareAndSet(false, true)) return false;
            connections.remove(this);
            release(host);
            context.runOnContext(v -> close(ListenerMetrics.CLOSED_EVICTED));
            return true;
        }

        private void activity() {
            lastActive = System.nanoTime();
            busy = inFlight > 0 || queuedBytes > 0;
        }

        private void onFrame(Buffer frame) {
            if (closed) {
                return;
            }
            if (expectLength) {
                int length = frame.getUnsignedShort(0);
                if (length == 0) {
                    close(ListenerMetrics.CLOSED_MALFORMED);
                    return;
                }
                expectLength = false;
                parser.fixedSizeMode(length);
                return;
            }
            expectLength = true;
            parser.fixedSizeMode(2);
            byte[] message = frame.getBytes();
            if (message.length < 12) {
                close(ListenerMetrics.CLOSED_MALFORMED); // not even a header: the stream cannot be trusted any more
                return;
            }
            inFlight++;
            listenerMetrics.inFlight().incrementAndGet();
            activity();
            updateReading();
            // The processor never throws and runs the last callback exactly once per request, answered or dropped:
            // the count taken above is always given back, so a connection never stays busy for nothing.
            processor.process(message, client, this::answerFromAnyThread, null, this::finishFromAnyThread);
        }

        private void finishFromAnyThread() {
            if (Vertx.currentContext() == context) {
                finish();
            } else {
                context.runOnContext(v -> finish());
            }
        }

        /** One request is over (after its last answer was queued, or it was dropped): its in-flight slot is free. */
        private void finish() {
            inFlight--;
            listenerMetrics.inFlight().decrementAndGet();
            if (closed) {
                return;
            }
            activity();
            updateReading();
        }

        /** Forwarded answers complete on other threads; the connection's state lives on its event loop. */
        private void answerFromAnyThread(byte[] response) {
            if (Vertx.currentContext() == context) {
                answer(response);
            } else {
                context.runOnContext(v -> answer(response));
            }
        }

        private void answer(byte[] response) {
            if (closed) {
                return;
            }
            activity();
            int length = response.length + 2;
            if (queuedBytes + length > 4L * limits.outputBuffer()) {
                // Answers that were in flight when reading paused still came in: the client reads nothing.
                close(ListenerMetrics.CLOSED_OUTPUT);
                return;
            }
            queuedBytes += length;
            Buffer out = Buffer.buffer(length).appendUnsignedShort(response.length).appendBytes(response);
            activity();
            socket.write(out, done -> {
                queuedBytes -= length;
                activity();
                updateReading();
            });
            updateReading();
        }

        /** Reads while the client takes its answers and few queries are pending; pauses otherwise. */
        private void updateReading() {
            if (closed) {
                return;
            }
            boolean stop = queuedBytes >= limits.outputBuffer() || socket.writeQueueFull() || inFlight >= MAX_IN_FLIGHT;
            if (stop && !paused) {
                paused = true;
                listenerMetrics.paused();
                parser.pause();
                socket.pause();
            } else if (!stop && paused) {
                paused = false;
                socket.resume();
                parser.resume();
            }
        }

        private void close(String reason) {
            if (closed) {
                return;
            }
            closed = true;
            listenerMetrics.closed(reason);
            LOG.debugf("tcp %s closed: %s", host, reason);
            socket.close();
        }
    }
}
