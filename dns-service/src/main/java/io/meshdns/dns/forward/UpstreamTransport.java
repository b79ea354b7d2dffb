package io.meshdns.dns.forward;

import java.io.IOException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

import io.vertx.core.Vertx;
import org.jboss.logging.Logger;
import org.xbill.DNS.DNSInput;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;

/**
 * Sends one query to one upstream over UDP, TCP or TLS, without blocking an event loop.
 *
 * <p>Anti-spoofing (RFC 5452): every upstream query gets a fresh random ID from a {@link SecureRandom}
 * (the client's ID is never reused upstream) and leaves from a socket picked at random from a pool of
 * {@code meshdns.dns.forward.udp-sockets} sockets on kernel-chosen random ports; each socket is replaced
 * by one on a new random port after {@code udp-socket-queries} queries, so the ports in use keep
 * changing (set it to 1 for a port of its own per query, at the cost of a bind per query). A datagram is accepted
 * only if its source address and port, its ID and its question all match; anything else is ignored and
 * the real answer is still awaited. With {@code case-randomization} (0x20) the question's letters are
 * sent in random case and the answer must echo them exactly; an answer that matches in everything but
 * case (an upstream that does not preserve case) makes the query be asked again, once, in the client's
 * own case, from a fresh socket and ID.
 *
 * <p>TCP (RFC 7766) and TLS (RFC 7858) go through {@link StreamConnections}: reused, pipelined connections, on the
 * UDP pool's event loops and transport (epoll wherever it loads, never Vert.x's).
 *
 * <p>The UDP sockets (their growth, rotation and per-socket accounting) are {@link UdpSocketPool}'s; TCP and TLS
 * connections are {@link StreamConnections}'; the query's and the answer's wire form, {@link UpstreamWire}'s. This class
 * picks the transport and applies 0x20.
 */
final class UpstreamTransport implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(UpstreamTransport.class);

    private final SecureRandom idRandom = new SecureRandom();
    private final UdpSocketPool udpPool;
    private final StreamConnections streams;
    private final boolean caseRandomization;

    UpstreamTransport(Vertx vertx, int poolSize, Duration connectTimeout) {
        this(vertx, poolSize, 64, connectTimeout, false, ForwardSettings.StreamSettings.DEFAULT);
    }

    UpstreamTransport(Vertx vertx, int poolSize, int queriesPerSocket, Duration connectTimeout, boolean caseRandomization,
                      ForwardSettings.StreamSettings streamSettings) {
        this.udpPool = new UdpSocketPool(eventLoops(vertx), poolSize, queriesPerSocket, idRandom);
        this.caseRandomization = caseRandomization;
        this.streams = new StreamConnections(udpPool.socketTransport(), udpPool.loops(), streamSettings, connectTimeout);
    }

    /**
     * Binds the first UDP socket of each family in use, so that a family that cannot bind at all fails the
     * start. Call once from a non-event-loop thread at start; the pool grows as queries need sockets.
     */
    void open(boolean needIpv4, boolean needIpv6) {
        udpPool.open(needIpv4, needIpv6);
    }

    /**
     * As many event loops for the UDP pool (and the TCP and TLS connections on them) as Vert.x has
     * (quarkus.vertx.event-loops-pool-size), as for the listeners.
     */
    private static int eventLoops(Vertx vertx) {
        int n = 0;
        for (io.netty.util.concurrent.EventExecutor ignored : vertx.nettyEventLoopGroup()) {
            n++;
        }
        return Math.max(1, n);
    }

    /** The UDP pool's channel classes (tests: no silent fallback to NIO). */
    java.util.Set<Class<?>> udpChannelClasses() {
        return udpPool.channelClasses();
    }

    /** The open TCP and TLS connections' channel classes (tests: no silent fallback to NIO). */
    java.util.Set<Class<?>> streamChannelClasses() {
        return streams.channelClasses();
    }

    /** Bound sockets in the pool now (tests: the pool fills after start). */
    int pooledSockets() {
        return udpPool.bound();
    }

    /** {@code name} with each ASCII letter's case chosen at random (0x20); the same name when it has no letters. */
    Name randomCase(Name name) {
        byte[] wire = name.toWire();
        long bits = idRandom.nextLong();
        int used = 0;
        int i = 0;
        while (i < wire.length && wire[i] != 0) {
            int len = wire[i] & 0xFF;
            for (int j = i + 1; j <= i + len; j++) {
                byte b = wire[j];
                if ((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z')) {
                    if (used == 64) {
                        bits = idRandom.nextLong();
                        used = 0;
                    }
                    wire[j] = (byte) (((bits >>> used++) & 1) == 0 ? (b | 0x20) : (b & ~0x20));
                }
            }
            i += len + 1;
        }
        try {
            return new Name(new DNSInput(wire));
        } catch (IOException e) {
            return name;
        }
    }

    /** One UDP exchange. Completes with the matching response, or exceptionally on timeout/I/O error. */
    CompletableFuture<Message> udp(Upstream upstream, Message clientQuery, Duration timeout) {
        Record question = clientQuery.getQuestion();
        if (!caseRandomization) {
            return udpOnce(upstream, clientQuery, question, timeout);
        }
        Name mixed = randomCase(question.getName());
        if (mixed.toString().equals(question.getName().toString())) {
            return udpOnce(upstream, clientQuery, question, timeout);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        Record sent = Record.newRecord(mixed, question.getType(), question.getDClass());
        return udpOnce(upstream, clientQuery, sent, timeout).handle((response, error) -> {
            Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null ? error.getCause() : error;
            if (cause instanceof CaseMismatch) {
                long left = deadline - System.nanoTime();
                LOG.debugf("upstream %s did not echo the 0x20 case of %s; asking again without it", upstream, question.getName());
                if (left <= 0) {
                    return CompletableFuture.<Message>failedFuture(new TimeoutException("no answer from " + upstream + " within " + timeout));
                }
                return udpOnce(upstream, clientQuery, question, Duration.ofNanos(left));
            }
            if (error != null) {
                return CompletableFuture.<Message>failedFuture(cause);
            }
            restoreCase(response, mixed, question);
            return CompletableFuture.completedFuture(response);
        }).thenCompose(f -> f);
    }

    /** The answer in the client's case: the question, and every record owned by the exact 0x20 name. */
    static void restoreCase(Message response, Name sent, Record question) {
        String sentText = sent.toString();
        List<Record> answers = response.getSection(Section.ANSWER);
        response.removeAllRecords(Section.QUESTION);
        response.addRecord(question, Section.QUESTION);
        if (answers.stream().noneMatch(r -> r.getName().toString().equals(sentText))) {
            return;
        }
        response.removeAllRecords(Section.ANSWER);
        for (Record r : answers) {
            response.addRecord(r.getName().toString().equals(sentText) ? r.withName(question.getName()) : r, Section.ANSWER);
        }
    }

    private CompletableFuture<Message> udpOnce(Upstream upstream, Message clientQuery, Record question, Duration timeout) {
        return udpPool.exchange(upstream, question, id -> UpstreamWire.upstreamQuery(clientQuery, question, id), timeout);
    }

    /**
     * One exchange over TCP, or TLS for a tls:// upstream, on a reused, pipelined connection ({@link StreamConnections}),
     * with RFC 1035 §4.2.2 length framing.
     */
    CompletableFuture<Message> tcp(Upstream upstream, Message clientQuery, Duration timeout) {
        return streams.exchange(upstream, id -> UpstreamWire.upstreamQuery(clientQuery, id), clientQuery.getQuestion(), timeout);
    }

    java.util.Map<String, Integer> openConnections() {
        return streams.openConnections();
    }

    /** The connections first: they are on the UDP pool's loops, which its close stops. */
    @Override
    public void close() {
        streams.close();
        udpPool.close();
    }

    /** An answer that matched in everything but the letter case of the 0x20 question. */
    static final class CaseMismatch extends IOException {
        CaseMismatch(String message) {
            super(message);
        }
    }
}
