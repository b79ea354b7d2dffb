package io.meshdns.dns.server;

import io.meshdns.dns.base.TurnFlush;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.util.ReferenceCountUtil;

import java.util.concurrent.RejectedExecutionException;

/**
 * The replies of one UDP socket that the slow path completes, written from any thread and flushed once per turn of
 * the socket's event loop. A forwarded answer completes on the forwarder's loop: written and flushed one by one, each
 * was a task of its own on the listener's loop and one {@code sendto}; written here, all the replies that reach the
 * loop in one turn leave together at the end of it, in one {@code sendmmsg} on epoll, as the fast path's replies do
 * after each read batch. A reply is never held back past the turn it was written in.
 *
 * <p>{@link #write} may be called from any thread: it hands the write to the socket's loop ({@link TurnFlush}).
 */
final class TurnFlushedReplies {
    private final Channel channel;
    private final EventLoop loop;
    private final TurnFlush flush;

    TurnFlushedReplies(Channel channel) {
        this.channel = channel;
        this.loop = channel.eventLoop();
        this.flush = new TurnFlush(channel);
    }

    /** Queues {@code reply} on the socket; it is sent by the end of the loop's current (or next) turn. */
    void write(Object reply) {
        if (loop.inEventLoop()) {
            writeOnLoop(reply);
        } else {
            try {
                loop.execute(() -> writeOnLoop(reply));
            } catch (RejectedExecutionException e) {
                ReferenceCountUtil.release(reply); // the listener is closing: the reply has nowhere to go
            }
        }
    }

    private void writeOnLoop(Object reply) {
        channel.write(reply, channel.voidPromise());
        flush.request();
    }
}
