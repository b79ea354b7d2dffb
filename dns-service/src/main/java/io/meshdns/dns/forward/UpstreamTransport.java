package io.meshdns.dns.forward;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.InternetProtocolFamily;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.concurrent.ScheduledFuture;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.impl.VertxInternal;
import org.jboss.logging.Logger;
import org.xbill.DNS.DNSInput;
import org.xbill.DNS.ExtendedFlags;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;

/**
 * Sends one query to one upstream over UDP or TCP, on Vert.x, without blocking an event loop.
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
 * <p>TCP (RFC 7766) and TLS (RFC 7858) go through {@link StreamConnections}: reused, pipelined connections.
 *
 * <p>Over 400 lines because the UDP socket pool (its growth, rotation and per-slot accounting) still lives here as
 * inner classes sharing the send path's random sources and event loops; it is the next part to move into a class of
 * its own, as the stream connections did.
 */
final class UpstreamTransport implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(UpstreamTransport.class);

    /** EDNS0 payload we advertise upstream (DNS flag day 2020). */
    static final int UPSTREAM_UDP_PAYLOAD = 1232;
    /**
     * Largest upstream datagram we read whole (more than the payload we advertise, for upstreams that
     * ignore it; a longer one is cut, fails to parse and is ignored). One read buffer of this size
     * stays in Netty's per-thread cache.
     */
    static final int MAX_ANSWER_DATAGRAM = 4096;

    private final Vertx vertx;
    private final SecureRandom idRandom = new SecureRandom();
    private final Pool ipv4;
    private final Pool ipv6;
    private final StreamConnections streams;
    private final int poolSize;
    private final int queriesPerSocket;
    private final boolean caseRandomization;
    private volatile boolean closed;

    UpstreamTransport(Vertx vertx, int poolSize, Duration connectTimeout) {
        this(vertx, poolSize, 64, connectTimeout, false, ForwardSettings.StreamSettings.DEFAULT);
    }

    UpstreamTransport(Vertx vertx, int poolSize, int queriesPerSocket, Duration connectTimeout, boolean caseRandomization,
                      ForwardSettings.StreamSettings streamSettings) {
        this.vertx = vertx;
        this.poolSize = poolSize;
        this.queriesPerSocket = queriesPerSocket;
        this.ipv4 = new Pool(InternetProtocolFamily.IPv4, "0.0.0.0");
        this.ipv6 = new Pool(InternetProtocolFamily.IPv6, "::");
        this.caseRandomization = caseRandomization;
        this.streams = new StreamConnections(vertx, streamSettings, connectTimeout);
    }

    /**
     * Binds the first UDP socket of each family in use, so that a family that cannot bind at all fails the
     * start. Call once from a non-event-loop thread at start; {@link #fill()} binds the rest of the pool.
     */
    void open(boolean needIpv4, boolean needIpv6) {
        try {
            if (needIpv4) {
                ipv4.enable();
            }
            if (needIpv6) {
                ipv6.enable();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while binding upstream UDP sockets", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot bind upstream UDP sockets: " + e.getMessage(), e);
        }
    }

    /** Bound sockets in the pools now (tests: the pool fills after start). */
    int pooledSockets() {
        return ipv4.bound() + ipv6.bound();
    }

    /** Wire form of the query we send upstream: the client's question and RD/CD, our ID and EDNS. */
    static byte[] upstreamQuery(Message clientQuery, int id) {
        return upstreamQuery(clientQuery, clientQuery.getQuestion(), id);
    }

    static byte[] upstreamQuery(Message clientQuery, Record question, int id) {
        Message q = new Message(id);
        q.getHeader().setOpcode(clientQuery.getHeader().getOpcode());
        if (clientQuery.getHeader().getFlag(Flags.RD)) {
            q.getHeader().setFlag(Flags.RD);
        }
        if (clientQuery.getHeader().getFlag(Flags.CD)) {
            q.getHeader().setFlag(Flags.CD);
        }
        q.addRecord(question, Section.QUESTION);
        OPTRecord clientOpt = clientQuery.getOPT();
        int flags = clientOpt != null ? clientOpt.getFlags() & ExtendedFlags.DO : 0;
        q.addRecord(new OPTRecord(UPSTREAM_UDP_PAYLOAD, 0, 0, flags), Section.ADDITIONAL);
        return q.toWire();
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
        Pool pool = upstream.isIpv6() ? ipv6 : ipv4;
        CompletableFuture<Message> result = new CompletableFuture<>();
        if (!pool.enabled || closed) {
            result.completeExceptionally(new IOException("no UDP socket for " + upstream));
            return result;
        }
        Slot slot = pool.take();
        if (slot != null) {
            send(slot, upstream, clientQuery, question, timeout, result);
        } else {
            // Every slot is being replaced at this instant: a socket of its own for this one query.
            pool.bind(1).whenComplete((own, error) -> {
                if (error != null) {
                    result.completeExceptionally(error);
                } else {
                    own.retired = true;
                    own.outstanding.incrementAndGet();
                    send(own, upstream, clientQuery, question, timeout, result);
                }
            });
        }
        return result;
    }

    /**
     * Hands the query to the slot's event loop, which owns the slot's table of queries in flight: the
     * ID is drawn, the timeout armed and the datagram written in one task there, and the answer is read
     * on the same thread, so none of that needs a lock.
     */
    private void send(Slot slot, Upstream upstream, Message clientQuery, Record question, Duration timeout,
                      CompletableFuture<Message> result) {
        Pending pending = new Pending(upstream, question, result);
        int id = idRandom.nextInt(0x10000);
        byte[] wire = upstreamQuery(clientQuery, question, id);
        EventLoop loop = slot.channel.eventLoop();
        if (loop.inEventLoop()) {
            slot.send(pending, wire, id, timeout);
            return;
        }
        try {
            loop.execute(() -> slot.send(pending, wire, id, timeout));
        } catch (RejectedExecutionException e) { // the event loops are shutting down
            slot.release();
            result.completeExceptionally(new IOException("upstream socket closed", e));
        }
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
        if (bytes.length < 12 || (((bytes[0] & 0xFF) << 8) | (bytes[1] & 0xFF)) != id) {
            return null;
        }
        if ((bytes[2] & OPCODE_BITS) != 0) {
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
        try {
            // A record dnsjava reads but cannot write back (a WKS with an empty bitmap, found by UpstreamResponseFuzz)
            // would fail every later step: an answer we cannot relay is no answer.
            response.toWire();
        } catch (RuntimeException e) {
            return null;
        }
        return response;
    }

    @Override
    public void close() {
        closed = true;
        ipv4.close();
        ipv6.close();
        streams.close();
    }

    /** An answer that matched in everything but the letter case of the 0x20 question. */
    static final class CaseMismatch extends IOException {
        CaseMismatch(String message) {
            super(message);
        }
    }

    private static final class Pending {
        final Upstream upstream;
        final Record question;
        final CompletableFuture<Message> result;
        ScheduledFuture<?> timeout;

        Pending(Upstream upstream, Record question, CompletableFuture<Message> result) {
            this.upstream = upstream;
            this.question = question;
            this.result = result;
        }
    }

    /**
     * The UDP sockets of one address family: {@code size} slots, each query on a slot picked at random
     * (SecureRandom), and each socket retired after {@code queriesPerSocket} queries: it takes no new
     * query, is closed once its last one is done, and a socket on a new random port takes its slot.
     * The source port of a query is thus one of {@code size} ports that keep changing; with
     * {@code queriesPerSocket = 1} every query has a port of its own.
     *
     * <p>The sockets are Netty channels on Vert.x's event loops, not Vert.x {@code DatagramSocket}s:
     * with Quarkus's Micrometer binder, every Vert.x datagram socket records its bytes in a
     * distribution summary tagged with its local port and the sender, so each replaced socket left
     * two new meters in the registry for good (an unbounded /metrics and registry lookups that got
     * slower as it grew), and every send resolved the upstream's address string again.
     */
    private final class Pool {
        final InternetProtocolFamily family;
        final InetSocketAddress wildcard;
        final AtomicReferenceArray<Slot> slots;
        volatile boolean enabled;

        Pool(InternetProtocolFamily family, String wildcard) {
            this.family = family;
            this.wildcard = new InetSocketAddress(wildcard, 0);
            this.slots = new AtomicReferenceArray<>(poolSize);
            this.growing = new java.util.concurrent.atomic.AtomicIntegerArray(poolSize);
        }

        /** 1 while slot i is being bound because a query found it empty (one bind per slot at a time). */
        final java.util.concurrent.atomic.AtomicIntegerArray growing;

        void enable() throws InterruptedException, ExecutionException, TimeoutException {
            enabled = true;
            slots.set(0, bind(queriesPerSocket).get(10, TimeUnit.SECONDS));
        }

        int bound() {
            int n = 0;
            for (int i = 0; i < poolSize; i++) {
                if (slots.get(i) != null) n++;
            }
            return n;
        }

        /**
         * Binds the empty slot {@code index} in the background: the pool grows as queries land on empty slots, so a
         * node that forwards little holds few sockets, and one that forwards much soon holds them all (every pick
         * is random, so the ports in use stay unpredictable while it grows).
         */
        void grow(int index) {
            if (!enabled || closed || !growing.compareAndSet(index, 0, 1)) {
                return;
            }
            bind(queriesPerSocket).whenComplete((fresh, error) -> {
                growing.set(index, 0);
                if (error != null) {
                    LOG.debugf("cannot bind an upstream UDP socket: %s", error.getMessage());
                    return; // a later query landing here tries again
                }
                if (closed || !slots.compareAndSet(index, null, fresh)) {
                    fresh.channel.close();
                }
            });
        }

        /** A live slot for one more query (counted), or null when every probed slot is being replaced. */
        Slot take() {
            for (int attempt = 0; attempt < 8 + poolSize; attempt++) {
                // Eight random picks; then, in a pool still growing, the bound slots in order from a random start.
                int i = attempt < 8 ? idRandom.nextInt(poolSize) : (int) ((attempt + idRandom.nextInt(poolSize)) % poolSize);
                Slot slot = slots.get(i);
                if (slot == null) {
                    if (attempt < 8) grow(i);
                    continue;
                }
                if (slot.retired) {
                    continue;
                }
                int use = slot.uses.incrementAndGet();
                if (use > slot.budget) {
                    continue; // another thread took the last use
                }
                slot.outstanding.incrementAndGet();
                if (use == slot.budget) {
                    replace(i, slot);
                }
                return slot;
            }
            return null;
        }

        private void replace(int index, Slot old) {
            old.retired = true;
            slots.compareAndSet(index, old, null);
            old.closeIfIdle();
            if (closed) {
                return;
            }
            bind(queriesPerSocket).whenComplete((fresh, error) -> {
                if (error != null) {
                    LOG.warnf("cannot bind an upstream UDP socket: %s", error.getMessage());
                    vertx.setTimer(1000, t -> replace(index, old));
                } else if (closed || !slots.compareAndSet(index, null, fresh)) {
                    fresh.channel.close();
                }
            });
        }

        /** A socket on a port the kernel picks (at random: Linux's ephemeral port selection), on the next event loop. */
        CompletableFuture<Slot> bind(int budget) {
            CompletableFuture<Slot> bound = new CompletableFuture<>();
            Channel channel = newChannel(family);
            channel.config().setRecvByteBufAllocator(new FixedRecvByteBufAllocator(MAX_ANSWER_DATAGRAM));
            Slot slot = new Slot(channel, budget);
            channel.pipeline().addLast(slot.reader);
            vertx.nettyEventLoopGroup().register(channel).addListener(registered -> {
                if (!registered.isSuccess()) {
                    channel.close();
                    bound.completeExceptionally(registered.cause());
                    return;
                }
                channel.bind(wildcard).addListener(b -> {
                    if (b.isSuccess()) {
                        bound.complete(slot);
                    } else {
                        channel.close();
                        bound.completeExceptionally(b.cause());
                    }
                });
            });
            return bound;
        }

        void close() {
            for (int i = 0; i < poolSize; i++) {
                Slot slot = slots.getAndSet(i, null);
                if (slot != null) {
                    slot.channel.close();
                }
            }
        }
    }

    private Channel newChannel(InternetProtocolFamily family) {
        if (vertx.isNativeTransportEnabled() && Epoll.isAvailable()) {
            return new EpollDatagramChannel(family);
        }
        return ((VertxInternal) vertx).transport().datagramChannel(family);
    }

    /**
     * One bound socket: its queries in flight by ID (touched only on its event loop), and its budget
     * of queries (counted by whichever thread picks it).
     */
    private final class Slot {
        final Channel channel;
        final int budget;
        final IntObjectHashMap<Pending> pending = new IntObjectHashMap<>();
        final AtomicInteger uses = new AtomicInteger();
        final AtomicInteger outstanding = new AtomicInteger();
        final AtomicBoolean socketClosed = new AtomicBoolean();
        final Reader reader = new Reader();
        volatile boolean retired;

        Slot(Channel channel, int budget) {
            this.channel = channel;
            this.budget = budget;
        }

        /** On the event loop: registers the query under {@code id} (or a free ID near it), arms its timeout, writes it. */
        void send(Pending p, byte[] wire, int id, Duration timeout) {
            int queryId = id;
            while (pending.containsKey(queryId)) {
                // Taken by a query still in flight on this socket (at most budget of them): draw again.
                queryId = idRandom.nextInt(0x10000);
            }
            if (queryId != id) {
                wire[0] = (byte) (queryId >>> 8);
                wire[1] = (byte) queryId;
            }
            final int sentId = queryId;
            pending.put(sentId, p);
            p.timeout = channel.eventLoop().schedule(() -> {
                if (pending.remove(sentId) == p) {
                    release();
                    p.result.completeExceptionally(new TimeoutException("no answer from " + p.upstream + " within " + timeout));
                }
            }, Math.max(1, timeout.toMillis()), TimeUnit.MILLISECONDS);
            channel.writeAndFlush(new DatagramPacket(Unpooled.wrappedBuffer(wire), p.upstream.address())).addListener(w -> {
                if (!w.isSuccess() && pending.get(sentId) == p) {
                    pending.remove(sentId);
                    p.timeout.cancel(false);
                    release();
                    p.result.completeExceptionally(w.cause());
                }
            });
        }

        /** One query on this socket is over (answered, timed out or failed). */
        void release() {
            outstanding.decrementAndGet();
            closeIfIdle();
        }

        void closeIfIdle() {
            if (retired && outstanding.get() == 0 && socketClosed.compareAndSet(false, true)) {
                channel.close();
            }
        }

        /** On the event loop: a datagram counts only if sender address and port, ID and question all match. */
        void onPacket(ByteBuf data, InetSocketAddress sender) {
            if (data.readableBytes() < 12) {
                return;
            }
            int id = data.getUnsignedShort(data.readerIndex());
            Pending p = pending.get(id);
            if (p == null || sender.getPort() != p.upstream.port()
                    || !p.upstream.address().getAddress().equals(sender.getAddress())) {
                LOG.debugf("ignoring unexpected datagram from %s (id %d)", sender, id);
                return;
            }
            byte[] bytes = new byte[data.readableBytes()];
            data.getBytes(data.readerIndex(), bytes);
            Message response = parseMatching(bytes, id, p.question);
            if (response == null) {
                LOG.debugf("ignoring datagram from %s with mismatched question", sender);
                return; // keep waiting: the genuine answer may still come
            }
            boolean caseKept = response.getQuestion().getName().toString().equals(p.question.getName().toString());
            pending.remove(id);
            p.timeout.cancel(false);
            release();
            if (caseKept) {
                p.result.complete(response);
            } else {
                p.result.completeExceptionally(new CaseMismatch("answer from " + p.upstream + " lost the question's case"));
            }
        }

        private final class Reader extends SimpleChannelInboundHandler<DatagramPacket> {
            @Override
            protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
                onPacket(packet.content(), packet.sender());
            }

            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                // An ICMP port unreachable and the like: the query times out and the next upstream is tried.
                LOG.debugf("upstream UDP socket: %s", cause.toString());
            }
        }
    }
}
