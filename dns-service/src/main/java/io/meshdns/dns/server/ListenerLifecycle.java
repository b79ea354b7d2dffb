package io.meshdns.dns.server;

import io.meshdns.dns.InvalidConfigException;
import io.meshdns.dns.metrics.DnsMetrics;
import io.meshdns.dns.ratelimit.ResponseRateLimiter;
import org.jboss.logging.Logger;

import java.time.Duration;

/**
 * When the listeners open and close: both on one port (with port 0, UDP picks it and TCP takes the same,
 * retried), optionally with SO_REUSEPORT, and on stop a drain period during which they keep answering.
 *
 * <p>Why the drain comes before the close, not after a "stop reading": with SO_REUSEPORT the kernel
 * hashes each client flow to one of the sockets sharing the port, and keeps hashing to ours until it is
 * closed. A socket that stopped reading would let its flows' queries pile up and be dropped; one that
 * keeps answering until the replacement has been up for the drain period loses only what sits in its
 * receive buffer at the instant it closes (measured: see the module README).
 */
final class ListenerLifecycle {
    private static final Logger LOG = Logger.getLogger(ListenerLifecycle.class);
    private static final int BIND_ATTEMPTS = 5;

    /** Event loops of the DNS sockets: as many as Vert.x has (quarkus.vertx.event-loops-pool-size). */
    private final int eventLoops;
    private final ServerSettings settings;
    private final int udpReceiveBuffer;
    private final ResponseRateLimiter limiter;
    private final RequestProcessor processor;
    private final DnsMetrics metrics;
    private final ListenerMetrics listenerMetrics;
    /** One UDP socket per bind address. */
    private volatile java.util.List<UdpListener> udp = java.util.List.of();
    private volatile TcpListener tcp;
    /** Opened by start, shut down by stop (or by a start that fails). */
    private volatile ListenerTransport transport;
    private volatile int port = -1;
    private volatile boolean draining;

    ListenerLifecycle(int eventLoops, ServerSettings settings, int udpReceiveBuffer, ResponseRateLimiter limiter,
                      RequestProcessor processor, DnsMetrics metrics, ListenerMetrics listenerMetrics) {
        this.eventLoops = eventLoops;
        this.limiter = limiter;
        this.settings = settings;
        this.udpReceiveBuffer = udpReceiveBuffer;
        this.processor = processor;
        this.metrics = metrics;
        this.listenerMetrics = listenerMetrics;
    }

    /**
     * Fails the start, naming the key, when reuse-port is asked for and the listeners' own transport cannot do it
     * (Vert.x's transport does not matter: the DNS sockets are not on it).
     */
    static void checkReusePort(ServerSettings settings) {
        String unavailable = settings.reusePort() ? ListenerTransport.reusePortUnavailable() : null;
        if (unavailable != null) {
            throw new InvalidConfigException(ServerConfig.REUSE_PORT, unavailable);
        }
        unavailable = settings.udpWorkers() > 1 ? ListenerTransport.udpReusePortUnavailable() : null;
        if (unavailable != null) {
            throw new InvalidConfigException(ServerConfig.UDP_WORKERS, settings.udpWorkers() + " " + unavailable);
        }
    }

    /** Quarkus's key for SO_REUSEPORT on the HTTP port (health, metrics), which stays on Vert.x. */
    static final String HTTP_REUSE_PORT = "quarkus.http.so-reuse-port";

    /**
     * Fails the start, naming the key, when the HTTP port is to be shared with SO_REUSEPORT and Vert.x is on the JDK
     * transport, which ignores that option (and a native image is always on it: Quarkus replaces Vert.x's transport
     * there). Accepted and ignored, the second instance of an overlap would fail to bind the HTTP port instead.
     */
    static void checkHttpReusePort(boolean httpReusePort, boolean vertxOnNativeTransport) {
        if (httpReusePort && !vertxOnNativeTransport) {
            throw new InvalidConfigException(HTTP_REUSE_PORT, "the HTTP server is on Vert.x's JDK transport here (always so in a "
                    + "native executable), which ignores SO_REUSEPORT, so a second instance could not bind the HTTP port: set it to "
                    + "false (on the JVM, quarkus.vertx.prefer-native-transport=true puts Vert.x on epoll)");
        }
    }

    /**
     * Binds UDP on the first address (with port 0 it picks the port), UDP on the others and TCP on all on that
     * same port; returns the port. Any one failing closes what was bound: all addresses or none.
     */
    int start() throws Exception {
        // At least one event loop per UDP worker, so that each reads its socket on a thread of its own.
        transport = ListenerTransport.open(Math.max(eventLoops, settings.udpWorkers()));
        try {
            return bind();
        } catch (Exception | Error e) {
            transport.shutdown();
            throw e;
        }
    }

    private int bind() throws Exception {
        ListenerTransport transport = this.transport;
        Exception last = null;
        for (int attempt = 1; attempt <= BIND_ATTEMPTS; attempt++) {
            java.util.List<UdpListener> sockets = new java.util.ArrayList<>();
            try {
                int bound = settings.port();
                try {
                    int workers = settings.udpWorkers();
                    for (int a = 0; a < settings.bindAddresses().size(); a++) {
                        // Every socket on a loop of its own while there are loops enough (address a's worker i on loop
                        // a * workers + i); the first socket bound picks the port (port 0).
                        for (int worker = 0; worker < workers; worker++) {
                            UdpListener socket = UdpListener.bind(transport, transport.loop(a * workers + worker), settings,
                                    settings.bindAddresses().get(a), udpReceiveBuffer, bound, limiter, processor, metrics);
                            sockets.add(socket);
                            bound = socket.port();
                        }
                    }
                    tcp = TcpListener.bind(transport, settings, settings.reusePort(), bound, processor, metrics, listenerMetrics);
                } catch (Exception e) {
                    sockets.forEach(UdpListener::close);
                    throw e;
                }
                udp = java.util.List.copyOf(sockets);
                port = bound;
                return bound;
            } catch (Exception e) {
                last = e;
                if (settings.port() != 0) {
                    break; // a fixed port that is taken will not free itself by retrying
                }
                LOG.debugf("port 0: TCP could not take the UDP port (attempt %d): %s", attempt, e.getMessage());
            }
        }
        String hint = settings.reusePort() ? "" : " (another instance on this port? " + ServerConfig.REUSE_PORT + "=true lets two share it)";
        // Named by its key, so the start's one-line report shows it (and where to move the listeners).
        throw new InvalidConfigException(ServerConfig.PORT, "cannot bind UDP+TCP on " + String.join(", ", settings.bindAddresses()) + " port "
                + settings.port() + " (" + ServerConfig.BIND_ADDRESS + "): " + last.getMessage() + hint, last);
    }

    /** "epoll" or "nio"; null before start. */
    String transport() {
        ListenerTransport t = transport;
        return t == null ? null : t.name();
    }

    /** The channel classes of the open sockets (UDP ones, then TCP), for the tests that catch a silent fallback. */
    java.util.List<Class<?>> channelClasses() {
        java.util.List<Class<?>> classes = new java.util.ArrayList<>();
        udp.forEach(u -> classes.add(u.channelClass()));
        TcpListener t = tcp;
        if (t != null) {
            classes.add(t.channelClass());
        }
        return classes;
    }

    /** The open UDP sockets, per bind address its workers in order: for the tests of their spread. */
    java.util.List<UdpListener> udpSockets() {
        return udp;
    }

    /** -1 before start and once closed. */
    int port() {
        return port;
    }

    /** Bound and not draining: what readiness reports, so no new traffic is steered here while we drain. */
    boolean serving() {
        return port > 0 && !draining;
    }

    /** Keeps answering for the drain period (when there are listeners to drain), then closes TCP and UDP. */
    void stop() {
        if (port <= 0) {
            return;
        }
        Duration drain = settings.drain();
        if (!drain.isZero()) {
            draining = true;
            LOG.infof("draining: still answering on port %d for %s, then closing", port, drain);
            try {
                Thread.sleep(drain.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        close();
        LOG.infof("listeners on port %d closed", port);
        port = -1;
    }

    private void close() {
        if (tcp != null) {
            tcp.close();
        }
        udp.forEach(UdpListener::close);
        transport.shutdown();
    }
}
