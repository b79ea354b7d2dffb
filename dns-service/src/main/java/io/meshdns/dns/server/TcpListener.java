package io.meshdns.dns.server;

import io.meshdns.dns.answer.ClientInfo;
import io.meshdns.dns.answer.Transport;
import io.meshdns.dns.metrics.DnsMetrics;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import org.jboss.logging.Logger;

import java.net.InetSocketAddress;
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
 *   <li>global and per-client connection caps, checked at accept: at a cap, the least recently used (last query
 *       longest ago) <em>idle</em> connection (no query being answered, no answer queued) of that client, or of anyone for
 *       the global cap, is closed to make room (RFC 7766 section 6.2.3 lets a server close idle connections
 *       under pressure); the new connection is refused only when every candidate is busy;</li>
 *   <li>an absolute age, so trickling a byte per second to keep the idle timer alive (slowloris)
 *       holds a connection no longer than {@code tcp.max-connection-age}.</li>
 * </ul>
 *
 * <p>Plain Netty channels on the listeners' own event loops ({@link ListenerTransport}), like UDP: on Vert.x's
 * NetServer a native image got the JDK transport, which ignores SO_REUSEPORT. Each connection's state lives on its
 * channel's event loop; answers completed elsewhere (forwarded queries) hop onto it.
 *
 * <p>Over 400 lines because a connection's framing, pausing and caps are one state machine on one event loop,
 * and splitting it would spread that state across classes.
 */
final class TcpListener {
    private static final Logger LOG = Logger.getLogger(TcpListener.class);
    /** Queries of one connection being answered at once (forwarded ones wait for upstreams); more pause its reading. */
    static final int MAX_IN_FLIGHT = 128;

    /** One listening channel per bind address, sharing this listener's caps and connection table. */
    private final java.util.List<Channel> servers = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** The listening channels and every accepted one, closed together. */
    private final ChannelGroup channels = new DefaultChannelGroup("meshdns-dns-tcp", GlobalEventExecutor.INSTANCE);
    private final ServerSettings.TcpLimits limits;
    private final ClientAcl acl;
    private final RequestProcessor processor;
    private final DnsMetrics metrics;
    private final ListenerMetrics listenerMetrics;
    private final ConcurrentMap<String, Integer> perClient = new ConcurrentHashMap<>();
    /** Every open connection, for choosing one to evict at a cap (scanned only then: at most max-connections). */
    private final java.util.Set<Connection> connections = ConcurrentHashMap.newKeySet();

    private TcpListener(ServerSettings settings, RequestProcessor processor, DnsMetrics metrics, ListenerMetrics listenerMetrics) {
        this.limits = settings.tcp();
        this.acl = settings.acl();
        this.processor = processor;
        this.metrics = metrics;
        this.listenerMetrics = listenerMetrics;
    }

    /**
     * Listens on every bind address of {@code settings}, all on {@code port} (fixed by then: UDP chose it), one
     * channel each; the connection caps count the connections of all of them together.
     */
    static TcpListener bind(ListenerTransport transport, ServerSettings settings, boolean reusePort, int port,
                            RequestProcessor processor, DnsMetrics metrics, ListenerMetrics listenerMetrics) throws Exception {
        TcpListener listener = new TcpListener(settings, processor, metrics, listenerMetrics);
        try {
            for (String address : settings.bindAddresses()) {
                io.netty.channel.socket.InternetProtocolFamily family = ServerSettings.isIpv6(address)
                        ? io.netty.channel.socket.InternetProtocolFamily.IPv6 : io.netty.channel.socket.InternetProtocolFamily.IPv4;
                ServerBootstrap bootstrap = new ServerBootstrap()
                        .group(transport.group())
                        .channelFactory(() -> transport.serverChannel(family))
                        .option(ChannelOption.SO_REUSEADDR, true)
                        .childOption(ChannelOption.TCP_NODELAY, true)
                        .childOption(ChannelOption.SO_KEEPALIVE, false)
                        .childHandler(new ChannelInitializer<Channel>() {
                            @Override
                            protected void initChannel(Channel channel) {
                                listener.onConnection(channel);
                            }
                        });
                if (reusePort) {
                    // ListenerLifecycle.checkReusePort made sure epoll loads, so this is the epoll transport.
                    bootstrap.option(EpollChannelOption.SO_REUSEPORT, true);
                }
                Channel server = ListenerTransport.bind(bootstrap, "TCP", address, port);
                listener.servers.add(server);
                listener.channels.add(server);
            }
        } catch (Exception e) {
            listener.close();
            throw e;
        }
        return listener;
    }

    int port() {
        return ((InetSocketAddress) servers.get(0).localAddress()).getPort();
    }

    /** The listening channel's class, for the tests that make sure the epoll path did not fall back silently. */
    Class<? extends Channel> channelClass() {
        return servers.get(0).getClass();
    }

    /** Stops accepting and closes every connection; returns when done (or after 5 s). */
    void close() {
        if (!channels.close().awaitUninterruptibly(5, TimeUnit.SECONDS)) {
            LOG.debugf("tcp close: not every channel closed within 5 s");
        }
    }

    /** On the new connection's event loop, before it is read: the ACL and the caps, then its handlers. */
    private void onConnection(Channel channel) {
        InetSocketAddress remote = (InetSocketAddress) channel.remoteAddress();
        if (remote == null || !acl.allows(remote.getAddress().getAddress())) {
            metrics.aclDropped(true);
            channel.close();
            return;
        }
        String host = remote.getAddress().getHostAddress();
        String refusal = admit(host);
        if (refusal != null) {
            listenerMetrics.refused(refusal);
            channel.close();
            return;
        }
        channels.add(channel);
        Connection connection = new Connection(channel, host, remote.getPort());
        // RFC 7766 section 6.2.3: no byte read or written for the idle timeout closes the connection (not counted).
        channel.pipeline().addLast(new IdleStateHandler(0, 0, limits.idleTimeout().toMillis(), TimeUnit.MILLISECONDS),
                connection);
        connections.add(connection);
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
     * Closes the idle connection (of {@code host}, or of anyone when null) whose client sent its last query longest ago,
     * and gives its
     * slot back at once; false when there is none. Its close runs on its own event loop.
     */
    private boolean evictIdle(String host) {
        while (true) {
            Connection oldest = null;
            for (Connection c : connections) {
                if ((host == null || c.host.equals(host)) && c.idle() && (oldest == null || c.lastQuery < oldest.lastQuery)) {
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

    /** One accepted connection; every field is touched only on its channel's event loop. */
    private final class Connection extends ChannelInboundHandlerAdapter {
        private final Channel channel;
        private final String host;
        private final ClientInfo client;
        private final ScheduledFuture<?> ageTimer;
        /** Bytes read and not yet taken as whole frames (two-byte length, then the message). */
        private ByteBuf pending;
        /** In the frame loop: a resume from inside it (a synchronous answer) must not start a second one. */
        private boolean framing;
        private int inFlight;
        private long queuedBytes;
        private boolean paused;
        private boolean closed;
        /**
         * When the client last sent a query (or connected). Read by other event loops choosing a connection to evict:
         * written only on this one. Not the time of our last write or of a query's end: those run on each connection's
         * own loop, and a loop that lagged would make an older connection look more recent than one the client used
         * after it.
         */
        private volatile long lastQuery = System.nanoTime();
        private volatile boolean busy;
        /** Its slot was given back (by an eviction, or by its close): exactly once. */
        private final java.util.concurrent.atomic.AtomicBoolean released = new java.util.concurrent.atomic.AtomicBoolean();

        Connection(Channel channel, String host, int port) {
            this.channel = channel;
            this.host = host;
            this.client = new ClientInfo(host, port, host.indexOf(':') >= 0, Transport.TCP);
            channel.closeFuture().addListener(f -> onClosed());
            ageTimer = channel.eventLoop().schedule(() -> close(ListenerMetrics.CLOSED_AGE),
                    limits.maxConnectionAge().toMillis(), TimeUnit.MILLISECONDS);
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
            onLoop(() -> close(ListenerMetrics.CLOSED_EVICTED));
            return true;
        }

        private void onClosed() {
            closed = true;
            ageTimer.cancel(false);
            connections.remove(this);
            if (released.compareAndSet(false, true)) release(host);
            if (pending != null) {
                pending.release();
                pending = null;
            }
        }

        private void activity() {
            busy = inFlight > 0 || queuedBytes > 0;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            if (closed) {
                in.release();
                return;
            }
            if (pending == null) {
                pending = in;
            } else {
                pending = io.netty.handler.codec.ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(ctx.alloc(), pending, in);
            }
            frames();
        }

        /** Takes every whole frame read so far, unless reading is paused (then they wait for the resume). */
        private void frames() {
            if (framing) {
                return;
            }
            framing = true;
            try {
                while (!closed && !paused && pending != null && pending.readableBytes() >= 2) {
                    int length = pending.getUnsignedShort(pending.readerIndex());
                    if (length == 0) {
                        close(ListenerMetrics.CLOSED_MALFORMED);
                        break;
                    }
                    if (pending.readableBytes() < 2 + length) {
                        break;
                    }
                    pending.skipBytes(2);
                    byte[] message = new byte[length];
                    pending.readBytes(message);
                    onMessage(message);
                }
                if (pending != null && !pending.isReadable()) {
                    pending.release();
                    pending = null;
                }
            } finally {
                framing = false;
            }
        }

        private void onMessage(byte[] message) {
            if (message.length < 12) {
                close(ListenerMetrics.CLOSED_MALFORMED); // not even a header: the stream cannot be trusted any more
                return;
            }
            inFlight++;
            listenerMetrics.inFlight().incrementAndGet();
            lastQuery = System.nanoTime();
            activity();
            updateReading();
            // The processor never throws and runs the last callback exactly once per request, answered or dropped:
            // the count taken above is always given back, so a connection never stays busy for nothing.
            processor.process(message, client, this::answerFromAnyThread, null, this::finishFromAnyThread);
        }

        /** Runs {@code task} on this connection's event loop (at once when already there). */
        private void onLoop(Runnable task) {
            if (channel.eventLoop().inEventLoop()) {
                task.run();
                return;
            }
            try {
                channel.eventLoop().execute(task);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                LOG.debugf("tcp %s: listeners already stopped", host); // the connection is gone with them
            }
        }

        private void finishFromAnyThread() {
            onLoop(this::finish);
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
            onLoop(() -> answer(response));
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
            ByteBuf out = channel.alloc().buffer(length).writeShort(response.length).writeBytes(response);
            activity();
            channel.writeAndFlush(out).addListener(done -> {
                queuedBytes -= length;
                activity();
                updateReading();
            });
            updateReading();
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            updateReading();
            ctx.fireChannelWritabilityChanged();
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            if (event instanceof IdleStateEvent) {
                LOG.debugf("tcp %s closed: idle", host);
                ctx.close();
            } else {
                ctx.fireUserEventTriggered(event);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debugf("tcp %s: %s", host, cause.getMessage());
            ctx.close();
        }

        /** Reads while the client takes its answers and few queries are pending; pauses otherwise. */
        private void updateReading() {
            if (closed) {
                return;
            }
            boolean stop = queuedBytes >= limits.outputBuffer() || !channel.isWritable() || inFlight >= MAX_IN_FLIGHT;
            if (stop && !paused) {
                paused = true;
                listenerMetrics.paused();
                channel.config().setAutoRead(false);
            } else if (!stop && paused) {
                paused = false;
                channel.config().setAutoRead(true); // asks the channel for a read
                frames(); // what was read before the pause first
            }
        }

        private void close(String reason) {
            if (closed) {
                return;
            }
            closed = true;
            listenerMetrics.closed(reason);
            LOG.debugf("tcp %s closed: %s", host, reason);
            channel.close();
        }
    }
}
