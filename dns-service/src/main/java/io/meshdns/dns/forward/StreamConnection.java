package io.meshdns.dns.forward;

import io.meshdns.dns.forward.StreamConnections.Pending;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.NetUtil;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.concurrent.ScheduledFuture;
import org.jboss.logging.Logger;
import org.xbill.DNS.Message;

import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One TCP or TLS connection to an upstream, with many queries in flight on it (RFC 7766 §6.2.1.1): each query gets an
 * ID no other query in flight here uses, and an answer completes the query with its ID only if its question matches
 * too, in whatever order answers come. Framing is RFC 1035 §4.2.2's, a 2-byte length and then the message, so a
 * message is {@value #MAX_MESSAGE} bytes at most; the decoder would close the connection on a longer frame. Closed
 * after the idle timeout once nothing is in flight.
 *
 * <p>Opened by its {@link StreamConnections.Pool}, whose lock guards its tables; written from any thread, read on its
 * channel's event loop. It tells the pool it is gone exactly once: when connecting (or the TLS handshake) fails, or
 * when it closes (our idle close, the upstream's close, a broken socket) after it was up.
 */
final class StreamConnection {
    private static final Logger LOG = Logger.getLogger(StreamConnection.class);
    /** The largest DNS message a 2-byte length can frame. */
    static final int MAX_MESSAGE = 0xFFFF;
    private static final int LENGTH_PREFIX = 2;

    private final StreamConnections.Pool pool;
    private final StreamConnections owner;
    /** By the ID sent on this connection. Guarded by the pool. */
    private final IntObjectHashMap<Pending> inFlight = new IntObjectHashMap<>();
    /** Assigned before the connection is up; written once it is. Guarded by the pool. */
    private final List<Pending> unsent = new ArrayList<>();
    private final AtomicBoolean gone = new AtomicBoolean();
    /** Set once {@link #open()} has a channel; guarded by the pool. */
    private volatile Channel channel;
    /** Connected (and, for TLS, handshaken) at some point. Guarded by the pool. */
    private boolean up;
    /** Guarded by the pool. */
    private ScheduledFuture<?> idleTimer;

    StreamConnection(StreamConnections.Pool pool) {
        this.pool = pool;
        this.owner = pool.owner();
    }

    /** Queries in flight here. Caller holds the pool. */
    int inFlight() {
        return inFlight.size();
    }

    /** Whether it was ever up: its queries were sent, so a close means the upstream dropped them. Caller holds the pool. */
    boolean everConnected() {
        return up;
    }

    /** The socket's class, null before {@link #open()}. Caller holds the pool. */
    Class<?> channelClass() {
        Channel ch = channel;
        return ch == null ? null : ch.getClass();
    }

    /** Every query assigned here, in flight or not yet written, now no longer here. Caller holds the pool. */
    List<Pending> takeAll() {
        List<Pending> all = new ArrayList<>(inFlight.values());
        inFlight.clear();
        all.addAll(unsent);
        unsent.clear();
        return all;
    }

    /** Connects (TCP, then TLS for a tls:// upstream); what was assigned meanwhile is written once it is up. */
    void open() {
        Upstream u = pool.upstream;
        SslContext tls = null;
        if (u.tls()) {
            try {
                tls = owner.tlsContext();
            } catch (IOException | RuntimeException e) {
                gone(e);
                return;
            }
        }
        SslContext tlsContext = tls;
        ChannelFuture connecting = owner.bootstrap(u).handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                if (tlsContext != null) {
                    ch.pipeline().addLast(tlsHandler(tlsContext, ch, u));
                }
                ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(LENGTH_PREFIX + MAX_MESSAGE, 0, LENGTH_PREFIX, 0, LENGTH_PREFIX),
                        new Reader());
            }
        }).connect(u.address());
        Channel ch = connecting.channel();
        synchronized (pool) {
            channel = ch;
        }
        connecting.addListener(connected -> {
            if (!connected.isSuccess()) {
                gone(connected.cause());
            } else if (tlsContext == null) {
                up(ch);
            } else {
                ch.pipeline().get(SslHandler.class).handshakeFuture().addListener(handshake -> {
                    if (handshake.isSuccess()) {
                        up(ch);
                    } else {
                        ch.close();
                        gone(handshake.cause());
                    }
                });
            }
        });
    }

    /** TLS for {@code u}: SNI with its server name (unless that is an address), its certificate checked against it. */
    private SslHandler tlsHandler(SslContext context, Channel ch, Upstream u) {
        SslHandler handler = context.newHandler(ch.alloc(), u.serverName(), u.port());
        handler.setHandshakeTimeoutMillis(owner.connectMillis());
        SSLEngine engine = handler.engine();
        SSLParameters params = engine.getSSLParameters();
        if (!NetUtil.isValidIpV4Address(u.serverName()) && !NetUtil.isValidIpV6Address(u.serverName())) {
            params.setServerNames(List.of(new SNIHostName(u.serverName())));
        }
        engine.setSSLParameters(params);
        return handler;
    }

    private void up(Channel ch) {
        List<Pending> toWrite;
        synchronized (pool) {
            up = true;
            toWrite = new ArrayList<>(unsent);
            unsent.clear();
        }
        ch.closeFuture().addListener(closed -> gone(new IOException("connection to " + pool.upstream + " closed")));
        for (Pending p : toWrite) {
            write(p);
        }
        armIdle();
    }

    /** Connecting failed, or the connection closed: the pool asks its queries again or fails them. Once. */
    private void gone(Throwable why) {
        if (gone.compareAndSet(false, true)) {
            LOG.debugf("connection to upstream %s gone: %s", pool.upstream, why.toString());
            pool.lost(this, why);
        }
    }

    /**
     * Gives {@code p} an ID unused on this connection; true when it waits for the connection to come up (it is
     * written then), false when the caller writes it now. Caller holds the pool.
     */
    boolean assign(Pending p) {
        int id;
        do {
            id = owner.idRandom().nextInt(0x10000);
        } while (inFlight.containsKey(id));
        p.id = id;
        inFlight.put(id, p);
        if (!up) {
            unsent.add(p);
            return true;
        }
        return false;
    }

    /** Writes {@code p} with its length; a failed write closes the connection, and the pool asks its queries again. */
    void write(Pending p) {
        if (p.result.isDone()) return;
        byte[] wire = p.wireFor.apply(p.id);
        if (wire.length > MAX_MESSAGE) {
            forget(p);
            p.result.completeExceptionally(new IOException("a query of " + wire.length + " bytes does not fit a 2-byte length"));
            return;
        }
        Channel ch = channel;
        ByteBuf frame = ch.alloc().buffer(LENGTH_PREFIX + wire.length).writeShort(wire.length).writeBytes(wire);
        ch.writeAndFlush(frame).addListener(written -> {
            if (!written.isSuccess()) {
                LOG.debugf("write to upstream %s failed: %s", pool.upstream, written.cause());
                ch.close();
            }
        });
    }

    /** {@code p} timed out: its ID is free again. */
    void forget(Pending p) {
        synchronized (pool) {
            if (inFlight.get(p.id) == p) inFlight.remove(p.id);
            unsent.remove(p);
        }
        armIdle();
    }

    /** On the event loop: one framed message, the answer to the query in flight with its ID if the question matches. */
    private void onAnswer(byte[] bytes) {
        if (bytes.length < 2) return;
        int id = ((bytes[0] & 0xFF) << 8) | (bytes[1] & 0xFF);
        Pending p;
        synchronized (pool) {
            p = inFlight.get(id);
            if (p != null) inFlight.remove(id);
        }
        if (p == null) return; // an answer after its timeout, or to an ID we never sent: ignored
        Message response = UpstreamWire.parseMatching(bytes, id, p.question);
        if (response == null) {
            p.result.completeExceptionally(new IOException("mismatched answer from " + pool.upstream));
        } else {
            p.result.complete(response);
        }
        armIdle();
    }

    /** Closes this connection after the idle timeout once nothing is in flight. */
    private void armIdle() {
        synchronized (pool) {
            if (idleTimer != null) {
                idleTimer.cancel(false);
                idleTimer = null;
            }
            if (!inFlight.isEmpty() || !up || gone.get()) {
                return;
            }
            try {
                idleTimer = channel.eventLoop().schedule(this::closeIfIdle, owner.idleTimeout().toMillis(), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                // the loops are stopping, and close the channel with them
            }
        }
    }

    private void closeIfIdle() {
        boolean idle;
        synchronized (pool) {
            idle = inFlight.isEmpty();
        }
        if (idle) close();
    }

    void close() {
        Channel ch;
        synchronized (pool) {
            ch = channel;
        }
        if (ch != null) ch.close();
    }

    /** The framed answers, on the connection's event loop. */
    private final class Reader extends SimpleChannelInboundHandler<ByteBuf> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            onAnswer(ByteBufUtil.getBytes(frame));
        }

        /** A broken socket, a failed handshake, a frame too long: closed, and the pool asks its queries again. */
        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debugf("connection to upstream %s broke: %s", pool.upstream, cause.toString());
            ctx.close();
        }
    }
}
