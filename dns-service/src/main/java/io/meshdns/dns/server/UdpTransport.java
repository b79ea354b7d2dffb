package io.meshdns.dns.server;

import io.meshdns.dns.InvalidConfigException;
import io.netty.channel.epoll.Epoll;
import io.netty.incubator.channel.uring.IOUring;

import java.util.Locale;

/**
 * The Netty transport the UDP listener runs on ({@code meshdns.dns.transport}). A preference, not a
 * requirement: a transport that cannot load here (io_uring disabled by {@code kernel.io_uring_disabled},
 * a seccomp profile, an old kernel; no native library) falls back to the next one, io_uring to epoll to
 * NIO, with one log line naming the key and the reason. Only a value that is none of them fails the start.
 */
enum UdpTransport {
    /** Netty's epoll channel on Vert.x's own event loop, recvmmsg/sendmmsg batches (the default). */
    EPOLL("epoll"),
    /** Netty's io_uring incubator channel on an event loop of its own (Vert.x's loops are epoll loops). */
    IO_URING("io_uring"),
    /** The JDK's NIO datagram channel: no native code at all. */
    NIO("nio");

    static final String AUTO = "auto";

    private final String key;

    UdpTransport(String key) {
        this.key = key;
    }

    String key() {
        return key;
    }

    /**
     * What can load on this machine (the cause why not, or null when it can), and whether Vert.x's own
     * event loops are epoll loops (quarkus.vertx.prefer-native-transport=true and epoll loaded).
     */
    record Availability(Throwable epoll, Throwable ioUring, boolean vertxEpoll) {
        /** Asks Netty on this machine; io_uring only when asked for, so its native library is not loaded for nothing. */
        static Availability probe(boolean vertxNativeTransport, boolean ioUringWanted) {
            Throwable epoll = Epoll.isAvailable() ? null : Epoll.unavailabilityCause();
            Throwable ioUring = null;
            if (ioUringWanted) {
                try {
                    ioUring = IOUring.isAvailable() ? null : IOUring.unavailabilityCause();
                } catch (LinkageError e) { // the incubator's classes or native library missing for this platform
                    ioUring = e;
                }
            }
            return new Availability(epoll, ioUring, vertxNativeTransport && epoll == null);
        }
    }

    /** The transport to use, and the one line to log when it is not the one asked for (null: nothing to say). */
    record Choice(UdpTransport transport, String fallback) {
    }

    /** Fails naming the key unless {@code value} is auto, epoll, io_uring or nio. */
    static String validate(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        if (v.equals(AUTO)) {
            return v;
        }
        for (UdpTransport t : values()) {
            if (t.key.equals(v)) {
                return v;
            }
        }
        throw new InvalidConfigException(ServerConfig.TRANSPORT, "'" + value + "' is none of auto, epoll, io_uring, nio");
    }

    /**
     * auto is Vert.x's own transport: epoll with quarkus.vertx.prefer-native-transport=true where it loads,
     * else NIO. An explicit choice that cannot load falls back down the list.
     */
    static Choice choose(String value, Availability here) {
        String v = validate(value);
        if (v.equals(AUTO)) {
            return new Choice(here.vertxEpoll() ? EPOLL : NIO, null);
        }
        UdpTransport wanted = valueOf(v.toUpperCase(Locale.ROOT));
        if (wanted == IO_URING && here.ioUring() != null) {
            UdpTransport instead = here.epoll() == null ? EPOLL : NIO;
            return new Choice(instead, ServerConfig.TRANSPORT + "=io_uring: io_uring is not available here (" + reason(here.ioUring())
                    + "); the UDP listener uses " + instead.key);
        }
        if (wanted == EPOLL && here.epoll() != null) {
            return new Choice(NIO, ServerConfig.TRANSPORT + "=epoll: epoll is not available here (" + reason(here.epoll())
                    + "); the UDP listener uses nio");
        }
        return new Choice(wanted, null);
    }

    private static String reason(Throwable cause) {
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return root.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}
