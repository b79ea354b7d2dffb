package io.meshdns.dns.forward;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntFunction;

import io.meshdns.dns.base.SocketTransport;
import io.meshdns.dns.base.TurnFlush;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollMode;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.InternetProtocolFamily;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.internal.ThreadExecutorMap;
import org.jboss.logging.Logger;
import org.xbill.DNS.Message;
import org.xbill.DNS.Record;

/**
 * The forwarder's upstream UDP sockets (RFC 5452 section 9.2): per address family {@code size} slots, each query on a
 * slot picked at random (SecureRandom), and each socket retired after {@code queriesPerSocket} queries: it takes no
 * new query, is closed once its last one is done, and a socket on a new kernel-chosen (random) port takes its slot.
 * The source port of a query is thus one of {@code size} ports that keep changing; with {@code queriesPerSocket = 1}
 * every query has a port of its own. At start only the first socket of each family in use is bound; the pool grows
 * as queries land on empty slots (an idle node holds one socket per family, a busy one soon all of them).
 *
 * <p>A query's ID draw, its timeout and its write run in one task on its socket's event loop, which owns that
 * socket's table of queries in flight; the answer is read on the same thread, so none of that needs a lock. A
 * datagram counts only if its source address and port, its ID and its question all match; anything else is ignored
 * and the real answer is still awaited.
 *
 * <p>A query asked on one of the DNS listeners' event loops ({@link SocketTransport#currentLoop()}) leaves from a
 * socket of that loop's own slots, registered on that loop: the exchange then never leaves the listener's thread (its
 * write, the answer's read and the reply all happen there), where a hand-off to the pool's loops cost two more thread
 * wake-ups per query, the most of a forwarded query's cost at the rates a node sees most of the time. Each such loop
 * has {@code size} slots per family of its own, grown and rotated as the shared ones are, so a query's port is still
 * one of {@code size} random ports; until its loop has a socket, a query takes the shared pool's. Queries asked
 * anywhere else (the health checks, the pool's own loops on a retry, tests) use the shared slots on the pool's loops.
 *
 * <p>The sockets are on the transport the DNS listeners use ({@link SocketTransport#best()}: epoll wherever it
 * loads, NIO otherwise), on event loops of the pool's own, not on Vert.x's: in a native image Vert.x is always on the
 * JDK transport, and every forwarded query then paid a plain sendto and recvfrom on NIO. The forwarder's TCP and TLS
 * connections ({@link StreamConnections}) run on the same loops ({@link #loops()}), so they must be closed first:
 * {@link #close()} closes the sockets, fails what is still in flight, then stops the loops.
 *
 * <p>The sockets are Netty channels, not Vert.x {@code DatagramSocket}s: with Quarkus's Micrometer binder every
 * Vert.x datagram socket records its bytes in a distribution summary tagged with its local port and the sender, so
 * each replaced socket left two new meters in the registry for good, and every send resolved the upstream's address
 * string again.
 *
 * <p>Over 400 lines because the pool's parts (the families' slots, their growth and rotation, the per-socket table of
 * queries in flight and its reader) share the random source, the budget counters and the event loops; split apart,
 * each would reach into the others' state.
 */
final class UdpSocketPool implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(UdpSocketPool.class);

    /**
     * Largest upstream datagram we read whole (more than the payload we advertise, for upstreams that
     * ignore it; a longer one is cut, fails to parse and is ignored). One read buffer of this size
     * stays in Netty's per-thread cache.
     */
    static final int MAX_ANSWER_DATAGRAM = 4096;

    /**
     * Answers per recvmmsg on epoll. The read buffer (8 x 4 KiB) stays within the pooled allocator's per-thread cache
     * (32 KiB), as the listeners' does: a larger one took a run from the arena and freed its chunk on every read.
     */
    static final int ANSWERS_PER_READ = 8;

    private static final AtomicBoolean FALLBACK_LOGGED = new AtomicBoolean();

    private final SocketTransport transport;
    private final EventLoopGroup loops;
    private final SecureRandom random;
    private final int size;
    private final int queriesPerSocket;
    private final Family ipv4;
    private final Family ipv6;
    /** Per DNS listener loop: its own slots ({@link LoopFamilies}); touched by that loop's thread only. */
    private final FastThreadLocal<LoopFamilies> loopFamilies = new FastThreadLocal<>();
    /** Every loop's families, for {@link #close()} and the counts. */
    private final ConcurrentLinkedQueue<Family> allLoopFamilies = new ConcurrentLinkedQueue<>();
    private volatile boolean closed;

    /**
     * @param threads event loops of the pool (as many as Vert.x has, as for the listeners)
     * @param random the source of slot picks and query IDs (shared with the caller's other unpredictable choices)
     */
    UdpSocketPool(int threads, int size, int queriesPerSocket, SecureRandom random) {
        this.transport = SocketTransport.best();
        if (transport == SocketTransport.NIO && FALLBACK_LOGGED.compareAndSet(false, true)) {
            LOG.warnf("forwarder's upstream UDP sockets on NIO: Netty's epoll transport cannot load here (%s)",
                    SocketTransport.epollUnavailableBecause());
        }
        this.loops = transport.newEventLoopGroup(threads, "meshdns-forward");
        this.size = size;
        this.queriesPerSocket = queriesPerSocket;
        this.random = random;
        this.ipv4 = new Family(InternetProtocolFamily.IPv4, loops);
        this.ipv6 = new Family(InternetProtocolFamily.IPv6, loops);
    }

    /**
     * Binds the first socket of each family in use, so that a family that cannot bind at all fails the start. Call
     * once from a non-event-loop thread at start; the rest of the pool is bound as queries need it.
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

    /** Bound sockets in the shared slots now (tests: the pool fills after start). */
    int bound() {
        return ipv4.bound() + ipv6.bound();
    }

    /** Bound sockets in the DNS listener loops' own slots now. */
    int boundOnListenerLoops() {
        int n = 0;
        for (Family f : allLoopFamilies) {
            n += f.bound();
        }
        return n;
    }

    /** The channel classes of the bound sockets: for the test that catches a silent fallback to NIO. */
    java.util.Set<Class<?>> channelClasses() {
        java.util.Set<Class<?>> classes = new java.util.HashSet<>();
        java.util.List<Family> families = new java.util.ArrayList<>(allLoopFamilies);
        families.add(ipv4);
        families.add(ipv6);
        for (Family f : families) {
            for (int i = 0; i < size; i++) {
                Slot slot = f.slots.get(i);
                if (slot != null) classes.add(slot.channel.getClass());
            }
        }
        return classes;
    }

    /** The transport of the pool's loops: a channel registered on {@link #loops()} must be of this kind. */
    SocketTransport socketTransport() {
        return transport;
    }

    /** The pool's event loops, shared with the forwarder's TCP and TLS connections; stopped by {@link #close()}. */
    EventLoopGroup loops() {
        return loops;
    }

    /**
     * One UDP exchange: {@code wire} builds the query for the ID drawn, {@code question} is what the answer must
     * carry. Completes with the matching response, or exceptionally on timeout, I/O error or an answer that lost the
     * question's letter case ({@link UpstreamTransport.CaseMismatch}).
     */
    CompletableFuture<Message> exchange(Upstream upstream, Record question, IntFunction<byte[]> wire, Duration timeout) {
        Family family = upstream.isIpv6() ? ipv6 : ipv4;
        CompletableFuture<Message> result = new CompletableFuture<>();
        if (!family.enabled || closed) {
            result.completeExceptionally(new IOException("no UDP socket for " + upstream));
            return result;
        }
        Family onThisLoop = listenerLoopFamily(family);
        Slot slot = onThisLoop != null ? onThisLoop.take() : null;
        if (slot == null) {
            slot = family.take();
        }
        if (slot != null) {
            send(slot, upstream, question, wire, timeout, result);
        } else {
            // Every slot is being replaced at this instant: a socket of its own for this one query.
            family.bind(1).whenComplete((own, error) -> {
                if (error != null) {
                    result.completeExceptionally(error);
                } else {
                    own.retired = true;
                    own.outstanding.incrementAndGet();
                    send(own, upstream, question, wire, timeout, result);
                }
            });
        }
        return result;
    }

    /**
     * The calling DNS listener loop's own slots of {@code shared}'s family, made on its first query; null on any other
     * thread, and on the pool's own loops (their sockets are the shared slots).
     */
    private Family listenerLoopFamily(Family shared) {
        EventLoop loop = SocketTransport.currentLoop();
        if (loop == null || loop.parent() == loops) {
            return null;
        }
        LoopFamilies mine = loopFamilies.get();
        if (mine == null) {
            mine = new LoopFamilies(loop);
            loopFamilies.set(mine);
        }
        return mine.of(shared);
    }

    /** Hands the query to the slot's event loop, which owns the slot's table of queries in flight. */
    private void send(Slot slot, Upstream upstream, Record question, IntFunction<byte[]> wireForId, Duration timeout,
                      CompletableFuture<Message> result) {
        int id = random.nextInt(0x10000);
        byte[] wire = wireForId.apply(id);
        Pending pending = new Pending(upstream, question, wire, result);
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
     * Closes the sockets, then stops the event loops (at most a few seconds): a query still in flight fails with an
     * I/O error (its socket's channelInactive, or the loops' own close of every channel they still hold: retired
     * sockets waiting for their last answer).
     */
    @Override
    public void close() {
        closed = true;
        ipv4.close();
        ipv6.close();
        allLoopFamilies.forEach(Family::close);
        loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    private static final class Pending {
        final Upstream upstream;
        final Record question;
        /** The query as sent: its question name in the letter case the answer must echo. */
        final byte[] wire;
        final CompletableFuture<Message> result;
        ScheduledFuture<?> timeout;

        Pending(Upstream upstream, Record question, byte[] wire, CompletableFuture<Message> result) {
            this.upstream = upstream;
            this.question = question;
            this.wire = wire;
            this.result = result;
        }
    }

    /** One DNS listener loop's own slots, a family each, made as its queries need them. */
    private final class LoopFamilies {
        final EventLoop loop;
        Family ipv4;
        Family ipv6;

        LoopFamilies(EventLoop loop) {
            this.loop = loop;
        }

        Family of(Family shared) {
            boolean v6 = shared == UdpSocketPool.this.ipv6;
            Family mine = v6 ? ipv6 : ipv4;
            if (mine == null) {
                mine = new Family(shared.family, loop);
                mine.enabled = true;
                // Listeners restarted in one process leave their stopped loops' families behind: forget those.
                allLoopFamilies.removeIf(f -> f.home.isShuttingDown());
                allLoopFamilies.add(mine);
                if (v6) {
                    ipv6 = mine;
                } else {
                    ipv4 = mine;
                }
            }
            return mine;
        }
    }

    /** The slots of one address family, on {@code home}: the pool's loops, or one DNS listener loop. */
    private final class Family {
        final InternetProtocolFamily family;
        /** Where this family's sockets are registered. */
        final EventLoopGroup home;
        final InetSocketAddress wildcard;
        final AtomicReferenceArray<Slot> slots;
        /** 1 while slot i is being bound because a query found it empty (one bind per slot at a time). */
        final AtomicIntegerArray growing;
        /** Per event-loop thread: the slot its current turn's queries share. */
        final FastThreadLocal<TurnPick> turnPicks = new FastThreadLocal<>() {
            @Override
            protected TurnPick initialValue() {
                return new TurnPick();
            }
        };
        volatile boolean enabled;

        Family(InternetProtocolFamily family, EventLoopGroup home) {
            this.family = family;
            this.home = home;
            this.wildcard = new InetSocketAddress(family == InternetProtocolFamily.IPv6 ? "::" : "0.0.0.0", 0);
            this.slots = new AtomicReferenceArray<>(size);
            this.growing = new AtomicIntegerArray(size);
        }

        void enable() throws InterruptedException, ExecutionException, TimeoutException {
            enabled = true;
            slots.set(0, bind(queriesPerSocket).get(10, TimeUnit.SECONDS));
        }

        int bound() {
            int n = 0;
            for (int i = 0; i < size; i++) {
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

        /**
         * A live slot for one more query (counted), or null when every probed slot is being replaced. A query asked
         * on an event loop takes the slot its loop's first query of the current turn picked at random, while that
         * slot's budget lasts: the queries of one burst (one read batch of a listener) then leave from one socket in
         * one {@code sendmmsg} and wake one loop, not one each.
         */
        Slot take() {
            TurnPick pick = turnPick();
            if (pick != null && pick.slot != null && use(pick.index, pick.slot)) {
                return pick.slot;
            }
            for (int attempt = 0; attempt < 8 + size; attempt++) {
                // Eight random picks; then, in a pool still growing, the bound slots in order from a random start.
                int i = attempt < 8 ? random.nextInt(size) : (int) ((attempt + random.nextInt(size)) % size);
                Slot slot = slots.get(i);
                if (slot == null) {
                    if (attempt < 8) grow(i);
                    continue;
                }
                if (use(i, slot)) {
                    if (pick != null) {
                        pick.remember(i, slot);
                    }
                    return slot;
                }
            }
            return null;
        }

        /** Counts one more query on {@code slot}, if it still takes one; the last of its budget retires it. */
        private boolean use(int index, Slot slot) {
            if (slot.retired) {
                return false;
            }
            int use = slot.uses.incrementAndGet();
            if (use > slot.budget) {
                return false; // another thread took the last use
            }
            slot.outstanding.incrementAndGet();
            if (use == slot.budget) {
                replace(index, slot);
            }
            return true;
        }

        /** The calling event loop's pick for this turn, or null when the caller is not on an event loop. */
        private TurnPick turnPick() {
            return ThreadExecutorMap.currentExecutor() != null ? turnPicks.get() : null;
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
                    try {
                        home.schedule(() -> replace(index, old), 1, TimeUnit.SECONDS);
                    } catch (RejectedExecutionException e) {
                        // closing: nothing to replace
                    }
                } else if (closed || !slots.compareAndSet(index, null, fresh)) {
                    fresh.channel.close();
                }
            });
        }

        /** A socket on a port the kernel picks (at random: Linux's ephemeral port selection), on the next loop of home. */
        CompletableFuture<Slot> bind(int budget) {
            CompletableFuture<Slot> bound = new CompletableFuture<>();
            Channel channel = transport.datagramChannel(family);
            // One read per wake-up, level-triggered (as the listeners): reading on until EAGAIN (edge-triggered) cost a
            // second recvmsg per forwarded query. On epoll that one read is a recvmmsg of up to ANSWERS_PER_READ
            // datagrams: a turn's queries leave from one socket, so their answers queue on it together.
            if (transport == SocketTransport.EPOLL) {
                channel.config().setOption(EpollChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, MAX_ANSWER_DATAGRAM);
                channel.config().setOption(EpollChannelOption.EPOLL_MODE, EpollMode.LEVEL_TRIGGERED);
                channel.config().setRecvByteBufAllocator(
                        new FixedRecvByteBufAllocator(MAX_ANSWER_DATAGRAM * ANSWERS_PER_READ).maxMessagesPerRead(1));
            } else {
                channel.config().setRecvByteBufAllocator(new FixedRecvByteBufAllocator(MAX_ANSWER_DATAGRAM).maxMessagesPerRead(1));
            }
            Slot slot = new Slot(channel, budget);
            channel.pipeline().addLast(slot.reader);
            ChannelFuture registering;
            try {
                registering = home.register(channel);
            } catch (RejectedExecutionException e) { // closing
                bound.completeExceptionally(new IOException("upstream sockets closed", e));
                return bound;
            }
            registering.addListener(registered -> {
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
            for (int i = 0; i < size; i++) {
                Slot slot = slots.getAndSet(i, null);
                if (slot != null) {
                    slot.channel.close();
                }
            }
        }
    }

    /**
     * The slot one event-loop thread picked at random for the first query of its loop's current turn, forgotten by a
     * task queued on that loop (after the turn's reads, or after the task that asked). Touched by that thread only.
     *
     * <p>RFC 5452 still holds: the pick is a fresh random one each turn, made when the turn's first query is asked, so
     * each query's source port is one of the pool's ports, unknown in advance, and its ID is its own random draw; an
     * attacker aiming at one query has the same port and ID to guess as before. What the queries of one burst share is
     * that port, which is what lets them leave in one system call.
     */
    private static final class TurnPick {
        Slot slot;
        int index;
        private final Runnable forget = () -> slot = null;

        void remember(int index, Slot slot) {
            boolean fresh = this.slot == null;
            this.index = index;
            this.slot = slot;
            if (fresh) {
                // A task, not an after-the-turn hook: it runs once this turn's I/O is handled on every kind of loop
                // (Netty's DefaultEventLoop never runs the hooks), and after the task that asked on the others.
                try {
                    ThreadExecutorMap.currentExecutor().execute(forget);
                } catch (RejectedExecutionException e) { // the caller's loop is stopping: no turn to share
                    this.slot = null;
                }
            }
        }
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
        /** The queries written in one turn of the loop leave together (one sendmmsg on epoll). */
        final TurnFlush flush;
        volatile boolean retired;

        Slot(Channel channel, int budget) {
            this.channel = channel;
            this.budget = budget;
            this.flush = new TurnFlush(channel);
        }

        /** On the event loop: registers the query under {@code id} (or a free ID near it), arms its timeout, writes it. */
        void send(Pending p, byte[] wire, int id, Duration timeout) {
            int queryId = id;
            while (pending.containsKey(queryId)) {
                // Taken by a query still in flight on this socket (at most budget of them): draw again.
                queryId = random.nextInt(0x10000);
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
            channel.write(new DatagramPacket(Unpooled.wrappedBuffer(wire), p.upstream.address())).addListener(w -> {
                if (!w.isSuccess() && pending.get(sentId) == p) {
                    pending.remove(sentId);
                    p.timeout.cancel(false);
                    release();
                    p.result.completeExceptionally(w.cause());
                }
            });
            flush.request();
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
            Message response = UpstreamWire.parseMatching(data.nioBuffer(), id, p.question);
            if (response == null) {
                LOG.debugf("ignoring datagram from %s with mismatched question", sender);
                return; // keep waiting: the genuine answer may still come
            }
            boolean caseKept = UpstreamWire.echoesQuestionCase(data, p.wire, response, p.question);
            pending.remove(id);
            p.timeout.cancel(false);
            release();
            if (caseKept) {
                p.result.complete(response);
            } else {
                p.result.completeExceptionally(new UpstreamTransport.CaseMismatch("answer from " + p.upstream + " lost the question's case"));
            }
        }

        private final class Reader extends SimpleChannelInboundHandler<DatagramPacket> {
            @Override
            protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
                onPacket(packet.content(), packet.sender());
            }

            /** Closed (the pool's close, or the loops stopping): what is still in flight here fails now, not never. */
            @Override
            public void channelInactive(ChannelHandlerContext ctx) {
                if (pending.isEmpty()) {
                    return;
                }
                java.util.List<Pending> left = new java.util.ArrayList<>(pending.values());
                pending.clear();
                for (Pending p : left) {
                    p.timeout.cancel(false);
                    outstanding.decrementAndGet();
                    p.result.completeExceptionally(new IOException("upstream socket closed"));
                }
            }

            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                // An ICMP port unreachable and the like: the query times out and the next upstream is tried.
                LOG.debugf("upstream UDP socket: %s", cause.toString());
            }
        }
    }
}
