package io.meshdns.dns.base;

import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.InternetProtocolFamily;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioChannelOption;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.netty.util.internal.ThreadExecutorMap;

import java.net.StandardSocketOptions;

/**
 * Which Netty transport dns-service's own sockets use (the DNS listeners, the forwarder's upstream UDP pool and its
 * TCP and TLS upstream connections), in one place: epoll wherever its native library loads
 * ({@link Epoll#isAvailable()}), NIO otherwise. Never Vert.x's choice: in a native image Quarkus puts Vert.x on the JDK
 * transport whatever {@code quarkus.vertx.prefer-native-transport} says, so sockets on Vert.x's loops would pay one
 * recvfrom and one sendto per datagram there. Each user opens its event loops from here and its channels from the
 * same constant, so a channel never lands on a loop of the other kind.
 */
public enum SocketTransport {
    EPOLL, NIO;

    /** The transport this process's DNS sockets use: epoll if it loads, else NIO. */
    public static SocketTransport best() {
        return Epoll.isAvailable() ? EPOLL : NIO;
    }

    /** Why epoll cannot load here (for the fallback's log line); null when it can. */
    public static String epollUnavailableBecause() {
        return Epoll.isAvailable() ? null : String.valueOf(Epoll.unavailabilityCause());
    }

    /** {@code threads} event loops of this transport, daemon threads named {@code <prefix>-<n>-<m>}. */
    public EventLoopGroup newEventLoopGroup(int threads, String threadPrefix) {
        DefaultThreadFactory names = new DefaultThreadFactory(threadPrefix, true) {
            @Override
            protected Thread newThread(Runnable r, String name) {
                return new LoopThread(threadGroup, r, name);
            }
        };
        return this == EPOLL ? new EpollEventLoopGroup(threads, names) : new NioEventLoopGroup(threads, names);
    }

    /**
     * The event loop the calling thread runs, when it is one of the loops {@link #newEventLoopGroup} made (a DNS
     * listener's, the forwarder's); null on any other thread, Vert.x's loops included. A channel of
     * {@link #best()}'s transport can be registered on it: every such loop in the process is of that transport.
     */
    public static EventLoop currentLoop() {
        return Thread.currentThread() instanceof LoopThread && ThreadExecutorMap.currentExecutor() instanceof EventLoop loop
                ? loop : null;
    }

    /** A thread of one of dns-service's own event loops: how {@link #currentLoop()} tells them from the others. */
    private static final class LoopThread extends FastThreadLocalThread {
        LoopThread(ThreadGroup group, Runnable task, String name) {
            super(group, task, name);
        }
    }

    /** A UDP socket of one family (an IPv4 address gets an IPv4 socket, not a dual-stack one). */
    public DatagramChannel datagramChannel(InternetProtocolFamily family) {
        return this == EPOLL ? new EpollDatagramChannel(family) : new NioDatagramChannel(family);
    }

    /** A TCP listening socket; on epoll of the given family, as for UDP. */
    public ServerChannel serverChannel(InternetProtocolFamily family) {
        return this == EPOLL ? new EpollServerSocketChannel(family) : new NioServerSocketChannel();
    }

    /** A TCP client socket (an upstream connection); on epoll of the given family, as for UDP. */
    public SocketChannel socketChannel(InternetProtocolFamily family) {
        return this == EPOLL ? new EpollSocketChannel(family) : new NioSocketChannel();
    }

    /** The socket option that sets SO_REUSEPORT on this transport's UDP sockets. */
    public ChannelOption<Boolean> udpReusePortOption() {
        return this == EPOLL ? EpollChannelOption.SO_REUSEPORT : NioChannelOption.of(StandardSocketOptions.SO_REUSEPORT);
    }

    /** "epoll" or "nio": in start lines and on the status page. */
    public String label() {
        return this == EPOLL ? "epoll" : "nio";
    }
}
