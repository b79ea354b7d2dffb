package io.meshdns.dns.server;

import io.meshdns.dns.answer.ClientInfo;
import io.meshdns.dns.answer.Transport;
import io.meshdns.dns.metrics.DnsMetrics;
import io.meshdns.dns.ratelimit.ResponseRateLimiter;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollMode;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.InternetProtocolFamily;
import org.jboss.logging.Logger;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The UDP listener, as a plain Netty channel on the listeners' own event loops and transport
 * ({@link ListenerTransport}: epoll wherever it loads, on the JVM and natively; NIO otherwise).
 *
 * <p>Why not Vert.x's DatagramSocket: its {@code setReceiveBufferSize} also installs a
 * {@code FixedRecvByteBufAllocator} of that size, so with the large kernel buffer a node-local DNS
 * needs for bursts (4 MiB) every received packet allocated and zeroed a 4 MiB direct buffer
 * (122 µs per query in bench/run). Here SO_RCVBUF is only the kernel's buffer, and each datagram is
 * read into a pooled 4 KiB buffer: a DNS query over UDP is far smaller (RFC 6891 clients advertise
 * what they accept, not what they send).
 */
final class UdpListener {
    private static final Logger LOG = Logger.getLogger(UdpListener.class);
    /** Largest query datagram we read; a bigger one is cut short and answered FORMERR. */
    static final int MAX_QUERY_DATAGRAM = 4096;
    /**
     * Datagrams per recvmmsg(2) on the epoll transport: Netty reads that many at once into one
     * pooled buffer of {@code MAX_QUERY_DATAGRAM} slots when MAX_DATAGRAM_PAYLOAD_SIZE is set.
     * The buffer (8 x 4 KiB) must stay within the pooled allocator's per-thread cache (32 KiB,
     * {@code io.netty.allocator.maxCachedBufferCapacity}): at 16 slots (64 KiB) each read took a run
     * from the arena, and when the read released it the emptied 4 MiB chunk was freed, so the next
     * read allocated and zeroed a new one (9% of the server's CPU at 50k QPS in perf).
     */
    static final int RECVMMSG_BATCH = 8;
    /*
     * Level-triggered, one recvmmsg per wakeup (as Knot reads): edge-triggered epoll obliges Netty to read until
     * EAGAIN, so every batch cost a second recvmmsg that found nothing, and Netty's native recvmmsg asks
     * getsockopt(IP_RECVORIGDSTADDR) before each call. Level-triggered with one read per wakeup, a batch that
     * left datagrams behind is simply woken again. bench/syscalls at 50k QPS: 0.90 -> 0.68 syscalls per query
     * (Knot 0.47: it has no getsockopt); bench/run CPU per query 8.4-9.2 -> 7.8-8.0 us in alternating rounds.
     */

    private final Channel channel;
    private final Handler handler;

    private UdpListener(Channel channel, Handler handler) {
        this.channel = channel;
        this.handler = handler;
    }

    /**
     * One socket on {@code address} (one of the settings' bind addresses) read by {@code loop}, with its own
     * handler. With {@code udp-workers} above 1 there are several per address, on one port, each on its own loop.
     */
    static UdpListener bind(ListenerTransport transport, EventLoop loop, ServerSettings settings, String address, int receiveBuffer,
                            int port, ResponseRateLimiter limiter, RequestProcessor processor, DnsMetrics metrics) throws Exception {
        InternetProtocolFamily family = ServerSettings.isIpv6(address) ? InternetProtocolFamily.IPv6 : InternetProtocolFamily.IPv4;
        boolean epoll = transport.epoll();
        Handler handler = new Handler(settings.acl(), limiter, processor, metrics);
        Bootstrap bootstrap = new Bootstrap()
                .group(loop)
                .channelFactory(() -> transport.datagramChannel(family))
                .option(ChannelOption.SO_RCVBUF, receiveBuffer)
                .option(ChannelOption.SO_SNDBUF, receiveBuffer)
                .handler(handler);
        if (settings.udpReusePort()) {
            // ListenerLifecycle.checkReusePort made sure this transport can (epoll, or the JDK's option for several workers).
            bootstrap.option(transport.udpReusePortOption(), true);
        }
        if (epoll) {
            // recvmmsg: up to RECVMMSG_BATCH datagrams per syscall, each in its own MAX_QUERY_DATAGRAM slot.
            bootstrap.option(EpollChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, MAX_QUERY_DATAGRAM)
                    .option(EpollChannelOption.EPOLL_MODE, EpollMode.LEVEL_TRIGGERED)
                    .option(ChannelOption.RCVBUF_ALLOCATOR,
                            new FixedRecvByteBufAllocator(MAX_QUERY_DATAGRAM * RECVMMSG_BATCH).maxMessagesPerRead(1));
        } else {
            bootstrap.option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(MAX_QUERY_DATAGRAM));
        }
        return new UdpListener(ListenerTransport.bind(bootstrap, "UDP", address, port), handler);
    }

    /** Datagrams this socket has read (for the tests that see each UDP worker take its share). */
    long datagrams() {
        return (long) Handler.DATAGRAMS.getOpaque(handler);
    }

    /** The event loop that reads this socket. */
    EventLoop eventLoop() {
        return channel.eventLoop();
    }

    int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    /** The socket's channel class, for the tests that make sure the epoll path did not fall back silently. */
    Class<? extends Channel> channelClass() {
        return channel.getClass();
    }

    void close() {
        channel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    /**
     * One per channel (not sharable), so always called on that channel's event loop: the two scratch
     * buffers are reused for every datagram. A remembered answer is looked up in the received bytes and
     * written straight into a pooled direct buffer, so a fast-path query allocates no byte arrays and no
     * heap buffer that the epoll transport would copy to a direct one before sending.
     */
    private static final class Handler extends SimpleChannelInboundHandler<DatagramPacket> {
        static final VarHandle DATAGRAMS;

        static {
            try {
                DATAGRAMS = MethodHandles.lookup().findVarHandle(Handler.class, "datagrams", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final ClientAcl acl;
        private final ResponseRateLimiter limiter;
        private final RequestProcessor processor;
        private final DnsMetrics metrics;
        private final byte[] query = new byte[MAX_QUERY_DATAGRAM];
        private final byte[] answer = new byte[RequestProcessor.MAX_FAST_ANSWER];
        /**
         * The last sender the ACL allowed (the list never changes): a node-local DNS hears from few clients,
         * and a repeat sender then costs no copy of its address bytes.
         */
        private InetAddress allowed;
        /** The slow path's replies, flushed once per loop turn; made on the first slow query (on the loop). */
        private TurnFlushedReplies replies;
        /** Written by this socket's event loop only, read by tests: opaque, so neither side pays a fence. */
        @SuppressWarnings("unused")
        private long datagrams;

        Handler(ClientAcl acl, ResponseRateLimiter limiter, RequestProcessor processor, DnsMetrics metrics) {
            this.acl = acl;
            this.limiter = limiter;
            this.processor = processor;
            this.metrics = metrics;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
            DATAGRAMS.setOpaque(this, (long) DATAGRAMS.getOpaque(this) + 1);
            InetSocketAddress sender = packet.sender();
            InetAddress from = sender.getAddress();
            boolean ipv6 = from instanceof Inet6Address;
            if (!from.equals(allowed)) { // equals compares the address without copying it out
                if (!acl.allows(from.getAddress())) {
                    metrics.aclDropped(false);
                    return;
                }
                allowed = from;
            }
            ByteBuf content = packet.content();
            int length = content.readableBytes();
            Channel channel = ctx.channel();
            if (limiter.enabled() && !admitted(ctx, content, length, from, sender)) {
                return;
            }
            if (length <= query.length) {
                content.getBytes(content.readerIndex(), query, 0, length);
                int answerLength = processor.fastAnswer(query, length, ipv6, answer);
                if (answerLength >= 0) {
                    ByteBuf out = ctx.alloc().ioBuffer(answerLength).writeBytes(answer, 0, answerLength);
                    // Flushed once per read batch (channelReadComplete): epoll sends the batch with sendmmsg.
                    channel.write(new DatagramPacket(out, sender), channel.voidPromise());
                    return;
                }
            }
            byte[] request = new byte[length];
            content.getBytes(content.readerIndex(), request);
            String host = sender.getAddress().getHostAddress();
            ClientInfo client = new ClientInfo(host, sender.getPort(), ipv6, Transport.UDP);
            if (replies == null) {
                replies = new TurnFlushedReplies(channel);
            }
            TurnFlushedReplies out = replies;
            processor.process(request, client, response -> out.write(new DatagramPacket(Unpooled.wrappedBuffer(response), sender)));
        }

        /**
         * The response-rate limit, before any other work: false when the query is dropped or was answered with a
         * truncated reply (slip).
         */
        private boolean admitted(ChannelHandlerContext ctx, ByteBuf content, int length, InetAddress from, InetSocketAddress sender) {
            ResponseRateLimiter.Verdict verdict = limiter.admit(from, System.nanoTime());
            if (verdict == ResponseRateLimiter.Verdict.ANSWER) {
                return true;
            }
            if (verdict == ResponseRateLimiter.Verdict.SLIP && length <= query.length) {
                content.getBytes(content.readerIndex(), query, 0, length);
                int replyLength = ResponseRateLimiter.truncatedReply(query, length, answer);
                if (replyLength > 0) {
                    ByteBuf out = ctx.alloc().ioBuffer(replyLength).writeBytes(answer, 0, replyLength);
                    ctx.channel().write(new DatagramPacket(out, sender), ctx.channel().voidPromise());
                }
            }
            return false;
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debugf("udp socket: %s", cause.getMessage());
        }
    }
}
