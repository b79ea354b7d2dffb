package io.meshdns.dns.server;

import io.meshdns.dns.base.SocketTransport;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.InternetProtocolFamily;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Replies completed off the listener's loop leave once per loop turn: the five replies that reach the loop in one
 * turn are flushed together (one sendmmsg on epoll), not one flush (one sendto) each, and every one arrives.
 */
class TurnFlushedRepliesTest {
    private EventLoopGroup loops;
    private Channel channel;
    private DatagramSocket receiver;
    private final AtomicInteger flushes = new AtomicInteger();
    private final AtomicInteger writes = new AtomicInteger();

    @BeforeEach
    void bind() throws Exception {
        SocketTransport transport = SocketTransport.best();
        loops = transport.newEventLoopGroup(1, "turn-flush-test");
        channel = transport.datagramChannel(InternetProtocolFamily.IPv4);
        channel.pipeline().addLast(new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, io.netty.channel.ChannelPromise promise) {
                writes.incrementAndGet();
                ctx.write(msg, promise);
            }

            @Override
            public void flush(ChannelHandlerContext ctx) {
                flushes.incrementAndGet();
                ctx.flush();
            }
        });
        loops.register(channel).sync();
        channel.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync();
        receiver = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        receiver.setSoTimeout(3000);
    }

    @AfterEach
    void close() {
        receiver.close();
        channel.close().awaitUninterruptibly(3, TimeUnit.SECONDS);
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    @Test
    void repliesWrittenFromAnotherThreadInOneTurnAreFlushedOnce() throws Exception {
        TurnFlushedReplies replies = new TurnFlushedReplies(channel);
        // Hold the loop, queue five replies from this thread (five tasks), then let the loop run them in one turn.
        CountDownLatch hold = new CountDownLatch(1);
        channel.eventLoop().execute(() -> {
            try {
                hold.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        InetSocketAddress to = (InetSocketAddress) receiver.getLocalSocketAddress();
        for (int i = 0; i < 5; i++) {
            replies.write(new DatagramPacket(Unpooled.wrappedBuffer(new byte[] {(byte) i}), to));
        }
        hold.countDown();
        java.net.DatagramPacket in = new java.net.DatagramPacket(new byte[16], 16);
        boolean[] seen = new boolean[5];
        for (int i = 0; i < 5; i++) {
            receiver.receive(in);
            seen[in.getData()[0]] = true;
        }
        for (boolean s : seen) assertTrue(s, "every reply arrives");
        channel.eventLoop().submit(() -> { }).sync(); // the turn that wrote them is over
        assertEquals(5, writes.get());
        assertEquals(1, flushes.get(), "one flush for the turn's five replies");
    }

    @Test
    void aReplyWrittenOnTheLoopIsSentByTheEndOfItsTurn() throws Exception {
        TurnFlushedReplies replies = new TurnFlushedReplies(channel);
        InetSocketAddress to = (InetSocketAddress) receiver.getLocalSocketAddress();
        channel.eventLoop().submit(() -> replies.write(new DatagramPacket(Unpooled.wrappedBuffer(new byte[] {7}), to))).sync();
        java.net.DatagramPacket in = new java.net.DatagramPacket(new byte[16], 16);
        receiver.receive(in);
        assertEquals(7, in.getData()[0]);
        assertEquals(1, flushes.get());
    }
}
