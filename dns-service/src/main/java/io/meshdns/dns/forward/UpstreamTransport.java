package io.meshdns.dns.forward;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

import io.vertx.core.Vertx;
import org.jboss.logging.Logger;
import org.xbill.DNS.DNSInput;
import org.xbill.DNS.DNSOutput;
import org.xbill.DNS.ExtendedFlags;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Header;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

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
 * connections are {@link StreamConnections}'; this class builds the queries, applies 0x20 and checks answers.
 */
final class UpstreamTransport implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(UpstreamTransport.class);

    /** EDNS0 payload we advertise upstream (DNS flag day 2020). */
    static final int UPSTREAM_UDP_PAYLOAD = 1232;

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

    /** Wire form of the query we send upstream: the client's question and RD/CD, our ID and EDNS. */
    static byte[] upstreamQuery(Message clientQuery, int id) {
        return upstreamQuery(clientQuery, clientQuery.getQuestion(), id);
    }

    /**
     * Written field by field rather than through a dnsjava {@link Message}: this runs once per forwarded query, and
     * the message, its sections, the compression table and the growing output buffer were a tenth of the bytes a
     * forwarded query allocated. {@code UpstreamQueryWireTest} holds it to the bytes dnsjava writes.
     */
    static byte[] upstreamQuery(Message clientQuery, Record question, int id) {
        Name name = question.getName();
        Header clientHeader = clientQuery.getHeader();
        int flags = clientHeader.getOpcode() << 11;
        if (clientHeader.getFlag(Flags.RD)) {
            flags |= 1 << (15 - Flags.RD);
        }
        if (clientHeader.getFlag(Flags.CD)) {
            flags |= 1 << (15 - Flags.CD);
        }
        // getOPT copies the additional section to look: skipped when the query has none.
        OPTRecord clientOpt = clientHeader.getCount(Section.ADDITIONAL) == 0 ? null : clientQuery.getOPT();
        int extendedFlags = clientOpt != null ? clientOpt.getFlags() & ExtendedFlags.DO : 0;
        DNSOutput out = new DNSOutput(HEADER_BYTES + name.length() + QUESTION_FIXED_BYTES + OPT_BYTES);
        out.writeU16(id);
        out.writeU16(flags);
        out.writeU16(1); // QDCOUNT
        out.writeU16(0); // ANCOUNT
        out.writeU16(0); // NSCOUNT
        out.writeU16(1); // ARCOUNT: our OPT
        name.toWire(out, null);
        out.writeU16(question.getType());
        out.writeU16(question.getDClass());
        out.writeU8(0); // OPT owner: the root
        out.writeU16(Type.OPT);
        out.writeU16(UPSTREAM_UDP_PAYLOAD); // OPT's class: our UDP payload size
        out.writeU8(0); // extended RCODE
        out.writeU8(0); // EDNS version
        out.writeU16(extendedFlags);
        out.writeU16(0); // no options
        return out.toByteArray();
    }

    private static final int HEADER_BYTES = 12;
    private static final int QUESTION_FIXED_BYTES = 4;
    private static final int OPT_BYTES = 11;

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
        return udpPool.exchange(upstream, question, id -> upstreamQuery(clientQuery, question, id), timeout);
    }

    /**
     * One exchange over TCP, or TLS for a tls:// upstream, on a reused, pipelined connection ({@link StreamConnections}),
     * with RFC 1035 §4.2.2 length framing.
     */
    CompletableFuture<Message> tcp(Upstream upstream, Message clientQuery, Duration timeout) {
        return streams.exchange(upstream, id -> upstreamQuery(clientQuery, id), clientQuery.getQuestion(), timeout);
    }

    java.util.Map<String, Integer> openConnections() {
        return streams.openConnections();
    }

    /** The opcode's four bits in the header's third byte. */
    private static final int OPCODE_BITS = 0x78;

    /** The response if it is a QUERY reply whose ID and question match what we asked, else null. */
    static Message parseMatching(byte[] bytes, int id, Record question) {
        return parseMatching(ByteBuffer.wrap(bytes), id, question);
    }

    /** As {@link #parseMatching(byte[], int, Record)}, reading the datagram where it lies (no copy). */
    static Message parseMatching(ByteBuffer bytes, int id, Record question) {
        int at = bytes.position();
        if (bytes.remaining() < HEADER_BYTES || (bytes.getShort(at) & 0xFFFF) != id) {
            return null;
        }
        if ((bytes.get(at + 2) & OPCODE_BITS) != 0) {
            // Not a QUERY reply (RFC 1035 4.1.1: a reply copies the query's opcode). Read as one anyway it would
            // differ from what we relay: an UPDATE may carry empty rdata that a QUERY reply cannot (UpstreamResponseFuzz).
            return null;
        }
        Message response;
        try {
            response = new Message(bytes);
        } catch (IOException e) {
            return null;
        }
        Record q = response.getQuestion();
        if (!response.getHeader().getFlag(Flags.QR) || q == null || q.getType() != question.getType()
                || q.getDClass() != question.getDClass() || !q.getName().equals(question.getName())) {
            return null;
        }
        return canBeWrittenBack(response) ? response : null;
    }

    /**
     * Whether every record we would relay can be written back: dnsjava reads some records it cannot write (a WKS
     * with an empty bitmap, found by UpstreamResponseFuzz), which would fail every later step, so an answer we cannot
     * relay is no answer. Only records outside {@link #ROUND_TRIP_TYPES} are written to find out (writing the whole
     * answer for every query was an eighth of what a forwarded query allocated); OPT and TSIG are hop-by-hop and are
     * never relayed ({@link Responses#toClient}).
     */
    static boolean canBeWrittenBack(Message response) {
        for (int section = Section.ANSWER; section <= Section.ADDITIONAL; section++) {
            if (response.getHeader().getCount(section) == 0) {
                continue;
            }
            for (Record r : response.getSection(section)) {
                int type = r.getType();
                if (roundTrips(type) || type == Type.OPT || type == Type.TSIG) {
                    continue;
                }
                try {
                    r.toWire(section);
                } catch (RuntimeException e) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * Types whose every readable form can be written back: fixed fields, names and length-prefixed strings, each
     * kept by dnsjava exactly as read. Anything else is written once to find out.
     */
    private static boolean roundTrips(int type) {
        return switch (type) {
            case Type.A, Type.AAAA, Type.NS, Type.CNAME, Type.DNAME, Type.PTR, Type.MX, Type.SRV, Type.SOA, Type.TXT -> true;
            default -> false;
        };
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
