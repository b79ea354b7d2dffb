package io.meshdns.dns.forward;

import io.meshdns.dns.base.SocketTransport;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.InternetProtocolFamily;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import org.xbill.DNS.Message;
import org.xbill.DNS.Record;

import java.io.IOException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
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
 * <p>The connections are Netty channels of the DNS sockets' transport ({@link SocketTransport}: epoll wherever it
 * loads, NIO otherwise) on the upstream UDP pool's event loops, not Vert.x's (which a native image keeps on the JDK
 * transport). Connecting is bounded by the connect timeout (the TLS handshake too); TLS is Netty's {@code SslHandler}
 * over the JDK's engine, trusting the {@code ca-file} (else the JDK's trust store), sending the upstream's server
 * name (SNI) and checking the certificate against it as HTTPS does. One connection's framing, matching and idle close
 * are {@link StreamConnection}'s; this class is the per-upstream pool and the queries' deadlines and retries.
 *
 * <p>State per upstream is guarded by that upstream's {@link Pool}; socket callbacks run on the connection's
 * event loop, queries arrive from any listener thread.
 */
final class StreamConnections implements AutoCloseable {
    static final long RECONNECT_DELAY_MILLIS = 100;

    private final SocketTransport transport;
    private final EventLoopGroup loops;
    private final ForwardSettings.StreamSettings settings;
    private final int connectMillis;
    private final SecureRandom idRandom = new SecureRandom();
    private final Map<Upstream, Pool> pools = new HashMap<>();
    /** Built at the first TLS connection; guarded by this. */
    private SslContext tlsContext;
    private volatile boolean closed;

    /**
     * @param transport the kind of {@code loops} (the channels must match it)
     * @param loops event loops this class does not own: the caller stops them after {@link #close()}
     */
    StreamConnections(SocketTransport transport, EventLoopGroup loops, ForwardSettings.StreamSettings settings,
                      Duration connectTimeout) {
        this.transport = transport;
        this.loops = loops;
        this.settings = settings;
        this.connectMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()));
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
        try {
            var timer = loops.schedule(() -> p.expire(upstream, timeout), Math.max(1, timeout.toMillis()), TimeUnit.MILLISECONDS);
            result.whenComplete((r, e) -> timer.cancel(false));
        } catch (RejectedExecutionException e) { // the loops are stopping
            result.completeExceptionally(new IOException("forwarder closed", e));
            return result;
        }
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

    /** The channel classes of the open connections: for the test that catches a silent fallback to NIO. */
    Set<Class<?>> channelClasses() {
        List<Pool> all;
        synchronized (pools) {
            all = new ArrayList<>(pools.values());
        }
        Set<Class<?>> classes = new HashSet<>();
        for (Pool pool : all) {
            synchronized (pool) {
                for (StreamConnection c : pool.connections) {
                    Class<?> type = c.channelClass();
                    if (type != null) classes.add(type);
                }
            }
        }
        return classes;
    }

    private Pool pool(Upstream upstream) {
        synchronized (pools) {
            return pools.computeIfAbsent(upstream, Pool::new);
        }
    }

    /** A bootstrap for one connection to {@code upstream}: its family's socket on the shared loops, connect timeout. */
    Bootstrap bootstrap(Upstream upstream) {
        InternetProtocolFamily family = upstream.isIpv6() ? InternetProtocolFamily.IPv6 : InternetProtocolFamily.IPv4;
        io.netty.channel.ChannelFactory<SocketChannel> sockets = () -> transport.socketChannel(family);
        return new Bootstrap().group(loops).channelFactory(sockets)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectMillis)
                .option(ChannelOption.TCP_NODELAY, true);
    }

    int connectMillis() {
        return connectMillis;
    }

    Duration idleTimeout() {
        return settings.idleTimeout();
    }

    SecureRandom idRandom() {
        return idRandom;
    }

    /**
     * The client TLS context, built once: the JDK's engine, trusting the PEM {@code ca-file} when set (else the JDK's
     * trust store), checking the peer's certificate against the name it is opened for as HTTPS does (RFC 2818).
     */
    synchronized SslContext tlsContext() throws IOException {
        if (tlsContext == null) {
            SslContextBuilder builder = SslContextBuilder.forClient().sslProvider(SslProvider.JDK)
                    .endpointIdentificationAlgorithm("HTTPS");
            if (settings.caFile() != null) {
                try {
                    builder.trustManager(settings.caFile().toFile());
                } catch (IllegalArgumentException e) {
                    throw new IOException("meshdns.dns.forward.tls.ca-file: " + e.getMessage(), e);
                }
            }
            tlsContext = builder.build();
        }
        return tlsContext;
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
    }

    /** One query waiting for its answer; {@link #retried} once it has been asked again after a broken connection. */
    static final class Pending {
        final IntFunction<byte[]> wireFor;
        final Record question;
        final CompletableFuture<Message> result;
        final long deadlineNanos;
        boolean retried;
        /** The connection it is assigned to, and its ID there. Guarded by the pool. */
        StreamConnection on;
        int id;

        Pending(IntFunction<byte[]> wireFor, Record question, CompletableFuture<Message> result, long deadlineNanos) {
            this.wireFor = wireFor;
            this.question = question;
            this.result = result;
            this.deadlineNanos = deadlineNanos;
        }

        void expire(Upstream upstream, Duration timeout) {
            StreamConnection c = on;
            if (c != null) {
                c.forget(this);
            }
            result.completeExceptionally(new TimeoutException("no answer from " + upstream + " within " + timeout));
        }
    }

    /** The connections to one upstream. */
    final class Pool {
        final Upstream upstream;
        final List<StreamConnection> connections = new ArrayList<>();

        Pool(Upstream upstream) {
            this.upstream = upstream;
        }

        StreamConnections owner() {
            return StreamConnections.this;
        }

        synchronized int size() {
            return connections.size();
        }

        void send(Pending p) {
            if (closed) {
                p.result.completeExceptionally(new IOException("forwarder closed"));
                return;
            }
            StreamConnection c;
            boolean fresh;
            boolean queued;
            synchronized (this) {
                c = pick();
                fresh = c == null;
                if (fresh) {
                    c = new StreamConnection(this);
                    connections.add(c);
                }
                p.on = c;
                queued = c.assign(p);
            }
            // Opened outside the lock, once p is on it: a connect that fails at once hands p back through lost().
            if (fresh) {
                c.open();
            } else if (!queued) {
                c.write(p);
            }
        }

        /**
         * The least busy connection under the in-flight cap; null (open a new one) while the pool has room; else the
         * least busy. Holds this.
         */
        private StreamConnection pick() {
            StreamConnection best = null;
            for (StreamConnection c : connections) {
                if (best == null || c.inFlight() < best.inFlight()) best = c;
            }
            if (best != null && best.inFlight() < settings.maxInFlight()) {
                return best;
            }
            return best == null || connections.size() < settings.maxPerUpstream() ? null : best;
        }

        /** A connection is gone: its queries are asked once more on another, or fail. Called once per connection. */
        void lost(StreamConnection c, Throwable why) {
            List<Pending> orphans;
            boolean everConnected;
            synchronized (this) {
                connections.remove(c);
                orphans = c.takeAll();
                everConnected = c.everConnected();
            }
            for (Pending p : orphans) {
                if (p.result.isDone()) continue;
                boolean inTime = !closed && System.nanoTime() < p.deadlineNanos;
                if (inTime && everConnected) {
                    p.retried = true; // its connection broke under it: ask again on a fresh one
                    send(p);
                } else if (inTime && p.retried) {
                    // The upstream is restarting: keep trying, briefly spaced, within this query's own deadline.
                    try {
                        loops.schedule(() -> {
                            if (!p.result.isDone()) send(p);
                        }, RECONNECT_DELAY_MILLIS, TimeUnit.MILLISECONDS);
                    } catch (RejectedExecutionException e) {
                        p.result.completeExceptionally(new IOException("forwarder closed", e));
                    }
                } else {
                    // A fresh query to an upstream that refuses: fail now, the forwarder tries the next upstream.
                    p.result.completeExceptionally(why instanceof IOException ? why : new IOException(String.valueOf(why.getMessage()), why));
                }
            }
        }

        void closeAll() {
            List<StreamConnection> all;
            synchronized (this) {
                all = new ArrayList<>(connections);
            }
            for (StreamConnection c : all) c.close();
        }
    }
}
