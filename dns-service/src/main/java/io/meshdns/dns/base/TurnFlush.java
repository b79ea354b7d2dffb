package io.meshdns.dns.base;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.SingleThreadEventLoop;

/**
 * One flush of a channel at the end of its event loop's current turn, however many writes the turn made: on epoll the
 * datagrams written in one turn then leave in one {@code sendmmsg} instead of a {@code sendto} each. Nothing written
 * is held back past the turn it was written in.
 *
 * <p>Loop-confined: call {@link #request()} on the channel's event loop only (the flag is touched nowhere else).
 */
public final class TurnFlush {
    private final Channel channel;
    private final Runnable flush = this::flush;
    /** A flush is queued for the end of this turn. */
    private boolean queued;

    public TurnFlush(Channel channel) {
        this.channel = channel;
    }

    /** On the channel's loop, after a write: the channel is flushed once this turn's I/O and tasks are done. */
    public void request() {
        if (queued) {
            return;
        }
        queued = true;
        afterThisTurn(channel.eventLoop(), flush);
    }

    /** Runs {@code task} after the current turn of {@code loop} (its I/O and its queued tasks); from that loop only. */
    public static void afterThisTurn(EventLoop loop, Runnable task) {
        if (loop instanceof SingleThreadEventLoop turns) {
            turns.executeAfterEventLoopIteration(task);
        } else {
            loop.execute(task);
        }
    }

    private void flush() {
        queued = false;
        channel.flush();
    }
}
