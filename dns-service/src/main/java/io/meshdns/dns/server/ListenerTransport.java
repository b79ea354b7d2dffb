package io.meshdns.dns.server;

import io.meshdns.dns.base.SocketTransport;
import io.netty.bootstrap.AbstractBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.InternetProtocolFamily;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The transport the DNS sockets use, and the event loops they run on: Netty's epoll wherever its native library
 * loads, NIO otherwise. Chosen here, not by Vert.x: in a native image Quarkus puts Vert.x on the JDK transport
 * whatever {@code quarkus.vertx.prefer-native-transport} says, and the DNS path then paid one recvfrom and one
 * sendto per query instead of recvmmsg/sendmmsg batches. So the listeners open their own channels on an event-loop
 * group of their own, the same code on the JVM and natively; HTTP stays on Vert.x. Which transport is
 * {@link SocketTransport#best()}'s decision, shared with the forwarder's upstream UDP sockets.
 */
final class ListenerTransport {
    private static final Logger LOG = Logger.getLogger(ListenerTransport.class);
    /** The NIO fallback is logged once per process, not once per start of the listeners (tests start many). */
    private static final AtomicBoolean FALLBACK_LOGGED = new AtomicBoolean();

    private final SocketTransport kind;
    private final EventLoopGroup group;
    /** The group's event loops in a fixed order: UDP worker i reads on loop i. */
    private final List<EventLoop> loops;

    private ListenerTransport(SocketTransport kind, EventLoopGroup group) {
        this.kind = kind;
        this.group = group;
        List<EventLoop> l = new ArrayList<>();
        group.forEach(e -> l.add((EventLoop) e));
        this.loops = List.copyOf(l);
    }

    /** Opens {@code threads} event loops on epoll if it loads, else on NIO (saying so once, with why). */
    static ListenerTransport open(int threads) {
        SocketTransport kind = SocketTransport.best();
        if (kind == SocketTransport.NIO && FALLBACK_LOGGED.compareAndSet(false, true)) {
            LOG.warnf("DNS listeners on NIO: Netty's epoll transport cannot load here (%s); one syscall per datagram, "
                    + "and %s=true is refused", SocketTransport.epollUnavailableBecause(), ServerConfig.REUSE_PORT);
        }
        return new ListenerTransport(kind, kind.newEventLoopGroup(threads, "meshdns-dns"));
    }

    /**
     * Binds a listener's socket to {@code address} and {@code port}, waiting at most ten seconds: the bound channel,
     * or the bind's own failure ({@code protocol}, UDP or TCP, names the listener when it timed out).
     */
    static Channel bind(AbstractBootstrap<?, ?> bootstrap, String protocol, String address, int port) throws Exception {
        ChannelFuture bound = bootstrap.bind(new InetSocketAddress(address, port));
        if (!bound.await(10, TimeUnit.SECONDS)) {
            bound.channel().close();
            throw new IllegalStateException(protocol + " bind on " + address + " port " + port + " timed out");
        }
        if (!bound.isSuccess()) {
            Throwable cause = bound.cause();
            throw cause instanceof Exception e ? e : new IllegalStateException(cause);
        }
        return bound.channel();
    }

    /** What reuse-port needs and why it cannot be had here; null when it can (epoll loads). */
    static String reusePortUnavailable() {
        return SocketTransport.best() == SocketTransport.EPOLL ? null
                : "needs Netty's epoll transport for the DNS sockets, which cannot load here (" + SocketTransport.epollUnavailableBecause()
                + "): set it to false, or run where netty-transport-native-epoll loads (Linux x86_64)";
    }

    /**
     * What several UDP sockets on one port ({@code udp-workers} above 1) need and why it cannot be had here; null
     * when it can: epoll, or NIO where the JDK offers SO_REUSEPORT on datagram sockets (Linux does).
     */
    static String udpReusePortUnavailable() {
        if (SocketTransport.best() == SocketTransport.EPOLL) {
            return null;
        }
        try (java.nio.channels.DatagramChannel probe = java.nio.channels.DatagramChannel.open()) {
            return probe.supportedOptions().contains(StandardSocketOptions.SO_REUSEPORT) ? null
                    : "needs SO_REUSEPORT on UDP sockets, which neither Netty's epoll (" + SocketTransport.epollUnavailableBecause()
                    + ") nor the JDK offers here: set it to 1";
        } catch (IOException e) {
            return "cannot open a UDP socket to check for SO_REUSEPORT: " + e.getMessage();
        }
    }

    /** The socket option that sets SO_REUSEPORT on this transport's UDP sockets. */
    ChannelOption<Boolean> udpReusePortOption() {
        return kind.udpReusePortOption();
    }

    /** The {@code i}-th event loop (modulo their number): where UDP worker {@code i} reads. */
    EventLoop loop(int i) {
        return loops.get(i % loops.size());
    }

    boolean epoll() {
        return kind == SocketTransport.EPOLL;
    }

    /** "epoll" or "nio": in the start line and on the status page. */
    String name() {
        return kind.label();
    }

    EventLoopGroup group() {
        return group;
    }

    /** A UDP socket of the bind address's family (an IPv4 address gets an IPv4 socket, not a dual-stack one). */
    DatagramChannel datagramChannel(InternetProtocolFamily family) {
        return kind.datagramChannel(family);
    }

    /** A TCP listening socket; on epoll of the bind address's family, as for UDP. */
    ServerChannel serverChannel(InternetProtocolFamily family) {
        return kind.serverChannel(family);
    }

    /** After the channels are closed: stops the event loops (at most a few seconds). */
    void shutdown() {
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
}
