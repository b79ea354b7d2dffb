package io.meshdns.dns.forward;

import io.netty.util.collection.IntObjectHashMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetSocket;
import io.vertx.core.net.PemTrustOptions;
import org.jboss.logging.Logger;
import org.xbill.DNS.Message;
import org.xbill.DNS.Record;

import java.io.IOException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;

/**
 * The TCP and TLS connections to upstreams (RFC 7766 §6.2.1, RFC 7858): a connection is reused for the next
 * query and carries many at once (pipelined, answers matched by ID and question, in any order), up to
 * {@code max-in-flight} before a second one opens, {@code max-per-upstream} at most; one with nothing in flight
 * closes after {@code idle-timeout}. Without reuse every truncated answer and every DoT query paid a TCP (and TLS)
 * handshake.
 *
 * <p>A connection the upstream closes, or that breaks, while queries are in flight (a restart, an idle timeout on
 * its side racing our write) does not lose them: each is asked again on a fresh connection, and while that upstream
 * refuses connections (it is restarting) again every {@value #RECONNECT_DELAY_MILLIS} ms, within the query's own
 * deadline. A fresh query to an upstream that refuses fails at once: the forwarder tries the next upstream.
 *
 * <p>State per upstream is guarded by that upstream's {@link Pool}; socket callbacks run on the connection's
 * event loop, queries arrive from any listener thread.
 */
final class StreamConnections implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(StreamConnections.class);
    static final long RECONNECT_DELAY_MILLIS = 100;

    private final Vertx vertx;
    private final ForwardSettings.StreamSettings settings;
    private final NetClient plain;
    private final NetClient tls;
    private final SecureRandom idRandom = new SecureRandom();
    private final Map<Upstream, Pool> pools = new HashMap<>();
    private volatile boolean closed;

    StreamConnections(Vertx vertx, ForwardSettings.StreamSettings settings, Duration connectTimeout) {
        this.vertx = vertx;
        this.settings = settings;
        int connectMillis = (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis());
        this.plain = vertx.createNetClient(new NetClientOptions().setConnectTimeout(connectMillis).setTcpNoDelay(true));
        NetClientOptions tlsOptions = new NetClientOptions().setConnectTimeout(connectMillis).setTcpNoDelay(true)
                .setSsl(true).setHostnameVerificationAlgorithm("HTTPS");
        if (settings.caFile() != null) {
            tlsOptions.setTrustOptions(new PemTrustOptions().addCertPath(settings.caFile().toString()));
        }
        this.tls = vertx.createNetClient(tlsOptions);
    }

    /**
     * Asks {@code upstream} one question. {@code wireFor} builds the query with the ID it is given (the connection
     * chooses one no other query in flight on it uses).
     */
    CompletableFuture<Message> exchange(Upstream upstream, IntFunction<byte[]> wireFor, Record question, Duration timeout) {
        CompletableFuture<Message> result = new CompletableFuture<>();
        if (closed) {
            result.completeExceptionally(new IOException("forwarder closed"));
            return result;
        }
        Pending p = new Pending(wireFor, question, result, System.nanoTime() + timeout.toNanos());
        long timer = vertx.setTimer(Math.max(1, timeout.toMillis()), t -> p.expire(upstream, timeout));
        result.whenComplete((r, e) -> vertx.cancelTimer(timer));
        pool(upstream).send(p);
        return result;
    }

    /** Open connections per upstream label, for the status page and tests. */
    Map<String, Integer> openConnections() {
        Map<String, Integer> out = new HashMap<>();
        synchronized (pools) {
            pools.forEach((u, pool) -> out.put(u.label(), pool.size()));
        }
        return out;
    }

    private Pool pool(Upstream upstream) {
        synchronized (pools) {
            return pools.computeIfAbsent(upstream, Pool::new);
        }
    }

    @Override
    public void close() {
        closed = true;
        List<Pool> all;
        synchronized (pools) {
            all = new ArrayList<>(pools.values());
        }
        for (Pool pool : all) {
            pool.closeAll();
        }
        plain.close();
        tls.close();
    }

    /** One query waiting for its answer; {@link #retried} once it has been asked again after a broken connection. */
    private static final class Pending {
        final IntFunction<byte[]> wireFor;
        final Record question;
        final CompletableFuture<Message> result;
        final long deadlineNanos;
        boolean retried;
        Connection on;
        int id;

        Pending(IntFunction<byte[]> wireFor, Record question, CompletableFuture<Message> result, long deadlineNanos) {
            this.wireFor = wireFor;
            this.question = question;
            this.result = result;
            this.deadlineNanos = deadlineNanos;
        }

        void expire(Upstream upstream, Duration timeout) {
            Connection c = on;
            if (c != null) {
                c.forget(this);
            }
            result.completeExceptionally(new TimeoutException("no answer from " + upstream + " within " + timeout));
        }
    }

    /** The connections to one upstream. */
    private final class Pool {
        final Upstream upstream;
        final List<Connection> connections = new ArrayList<>();

        Pool(Upstream upstream) {
            this.upstream = upstream;
        }

        synchronized int size() {
            return connections.size();
        }

        void send(Pending p) {
            Connection c;
            boolean queued;
            synchronized (this) {
                c = pick();
                p.on = c;
                queued = c.assign(p);
            }
            if (!queued) c.write(p);
        }

        /** The least busy connection under the in-flight cap; a new one while the pool has room; else the least busy. Holds this. */
        private Connection pick() {
            Connection best = null;
            for (Connection c : connections) {
                if (best == null || c.inFlight.size() < best.inFlight.size()) best = c;
            }
            if (best != null && best.inFlight.size() < settings.maxInFlight()) {
                return best;
            }
            if (best == null || connections.size() < settings.maxPerUpstream()) {
                Connection fresh = new Connection(this);
                connections.add(fresh);
                fresh.open();
                return fresh;
            }
            return best;
        }

        /** A connection is gone: its queries are asked once more on another, or fail. */
        void lost(Connection c, Throwable why) {
            List<Pending> orphans;
            synchronized (this) {
                connections.remove(c);
                orphans = new ArrayList<>(c.inFlight.values());
                c.inFlight.clear();
                orphans.addAll(c.unsent);
                c.unsent.clear();
            }
            for (Pending p : orphans) {
                if (p.result.isDone()) continue;
                boolean inTime = !closed && System.nanoTime() < p.deadlineNanos;
                if (inTime && c.everConnected) {
                    p.retried = true; // its connection broke under it: ask again on a fresh one
                    send(p);
                } else if (inTime && p.retried) {
                    // The upstream is restarting: keep trying, briefly spaced, within this query's own deadline.
                    vertx.setTimer(RECONNECT_DELAY_MILLIS, t -> {
                        if (!p.result.isDone()) send(p);
                    });
                } else {
                    // A fresh query to an upstream that refuses: fail now, the forwarder tries the next upstream.
                    p.result.completeExceptionally(why instanceof IOException ? why : new IOException(why.getMessage(), why));
                }
            }
        }

        void closeAll() {
            List<Connection> all;
            synchronized (this) {
                all = new ArrayList<>(connections);
            }
            for (Connection c : all) c.close();
        }
    }

    /** One TCP or TLS connection with 2-byte length framing (RFC 1035 §4.2.2), many queries in flight. */
    private final class Connection {
        final Pool pool;
        /** By the ID sent on this connection. Guarded by the pool. */
        final IntObjectHashMap<Pending> inFlight = new IntObjectHashMap<>();
        /** Assigned before the connection is up; written once it is. Guarded by the pool. */
        final List<Pending> unsent = new ArrayList<>();
        NetSocket socket;
        boolean everConnected;
        Buffer received = Buffer.buffer();
        long idleTimer = -1;

        Connection(Pool pool) {
            this.pool = pool;
        }

        void open() {
            Upstream u = pool.upstream;
            var connecting = u.tls() ? tls.connect(u.port(), u.hostAddress(), u.serverName()) : plain.connect(u.port(), u.hostAddress());
            connecting.onComplete(ar -> {
                if (ar.failed()) {
                    LOG.debugf("connection to upstream %s failed: %s", u, ar.cause().getMessage());
                    pool.lost(this, ar.cause());
                    return;
                }
                NetSocket s = ar.result();
                s.handler(this::onData);
                s.exceptionHandler(err -> {
                    LOG.debugf("connection to upstream %s broke: %s", u, err.getMessage());
                    s.close();
                });
                s.closeHandler(v -> pool.lost(this, new IOException("connection to " + u + " closed")));
                List<Pending> toWrite;
                synchronized (pool) {
                    socket = s;
                    everConnected = true;
                    toWrite = new ArrayList<>(unsent);
                    unsent.clear();
                }
                for (Pending p : toWrite) write(p);
                armIdle();
            });
        }

        /**
         * Gives {@code p} an ID unused on this connection; true when it waits for the connection to come up (it is
         * written then), false when the caller writes it now. Caller holds the pool.
         */
        boolean assign(Pending p) {
            int id;
            do {
                id = idRandom.nextInt(0x10000);
            } while (inFlight.containsKey(id));
            p.id = id;
            inFlight.put(id, p);
            if (socket == null) {
                unsent.add(p);
                return true;
            }
            return false;
        }

        void write(Pending p) {
            if (p.result.isDone()) return;
            byte[] wire = p.wireFor.apply(p.id);
            socket.write(Buffer.buffer(2 + wire.length).appendUnsignedShort(wire.length).appendBytes(wire));
        }

        void forget(Pending p) {
            synchronized (pool) {
                if (inFlight.get(p.id) == p) inFlight.remove(p.id);
                unsent.remove(p);
            }
            armIdle();
        }

        private void onData(Buffer chunk) {
            received.appendBuffer(chunk);
            int at = 0;
            while (received.length() - at >= 2) {
                int length = received.getUnsignedShort(at);
                if (received.length() - at - 2 < length) break;
                byte[] bytes = received.getBytes(at + 2, at + 2 + length);
                at += 2 + length;
                onAnswer(bytes);
            }
            if (at > 0) received = received.getBuffer(at, received.length());
        }

        private void onAnswer(byte[] bytes) {
            if (bytes.length < 2) return;
            int id = ((bytes[0] & 0xFF) << 8) | (bytes[1] & 0xFF);
            Pending p;
            synchronized (pool) {
                p = inFlight.get(id);
                if (p != null) inFlight.remove(id);
            }
            if (p == null) return; // an answer after its timeout, or to an ID we never sent: ignored
            Message response = UpstreamTransport.parseMatching(bytes, id, p.question);
            if (response == null) {
                p.result.completeExceptionally(new IOException("mismatched answer from " + pool.upstream));
            } else {
                p.result.complete(response);
            }
            armIdle();
        }

        /** Closes this connection after the idle timeout once nothing is in flight. */
        private void armIdle() {
            synchronized (pool) {
                if (idleTimer >= 0) {
                    vertx.cancelTimer(idleTimer);
                    idleTimer = -1;
                }
                if (inFlight.isEmpty() && socket != null) {
                    idleTimer = vertx.setTimer(settings.idleTimeout().toMillis(), t -> {
                        boolean idle;
                        synchronized (pool) {
                            idle = inFlight.isEmpty();
                        }
                        if (idle) close();
                    });
                }
            }
        }

        void close() {
            NetSocket s;
            synchronized (pool) {
                s = socket;
            }
            if (s != null) s.close();
        }
    }
}
