package io.meshdns.dns.server;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** Listener settings: where dns-service listens, who may ask, and the transport limits. */
@ConfigMapping(prefix = "meshdns.dns")
public interface ServerConfig {

    String BIND_ADDRESS = "meshdns.dns.bind-address";
    String PORT = "meshdns.dns.port";
    String ALLOWED_CLIENTS = "meshdns.dns.allowed-clients";
    String MAX_UDP_PAYLOAD = "meshdns.dns.edns.max-udp-payload";
    String TCP_IDLE_TIMEOUT = "meshdns.dns.tcp.idle-timeout";
    String UDP_RECEIVE_BUFFER = "meshdns.dns.udp.receive-buffer";
    String UDP_ANSWER_MEMO = "meshdns.dns.udp.answer-memo-entries";
    String UDP_WORKERS = "meshdns.dns.udp-workers";
    /** The most UDP sockets (and event loops) {@link #udpWorkers()} may ask for. */
    int MAX_UDP_WORKERS = 64;
    String TCP_MAX_CONNECTIONS = "meshdns.dns.tcp.max-connections";
    String TCP_MAX_CONNECTIONS_PER_CLIENT = "meshdns.dns.tcp.max-connections-per-client";
    String TCP_MAX_CONNECTION_AGE = "meshdns.dns.tcp.max-connection-age";
    String TCP_OUTPUT_BUFFER = "meshdns.dns.tcp.output-buffer";
    String REUSE_PORT = "meshdns.dns.reuse-port";
    String DRAIN = "meshdns.dns.drain";

    /** An IPv4 or IPv6 literal; UDP and TCP both bind it. */
    @WithDefault("127.0.0.1")
    String bindAddress();

    /** 0 binds any free port (the same one for UDP and TCP); the bound port is logged. */
    @WithDefault("5353")
    String port();

    /** CIDRs whose queries are answered; everything else is dropped (UDP) or closed (TCP). */
    @WithDefault("127.0.0.0/8,::1/128")
    List<String> allowedClients();

    /**
     * Open the UDP and TCP listeners with SO_REUSEPORT, so a new instance (a DaemonSet pod surging in
     * during an upgrade) binds the same address while this one still serves. Needs the native epoll transport.
     */
    @WithDefault("false")
    String reusePort();

    /**
     * On SIGTERM keep answering this long before the listeners close (0 = close at once): the time a
     * replacement sharing the port through {@code reuse-port} needs to take over. Unset: 5s with
     * reuse-port, 0 without (nothing can take over, and a stand-alone binary should stop at Ctrl-C).
     */
    Optional<String> drain();

    /**
     * UDP sockets per bind address, all on the same port with SO_REUSEPORT (the kernel spreads client flows over
     * them by their addresses and ports), each read by its own event loop: how a query load larger than one core
     * is spread over several. 1 to 64; above 1 needs SO_REUSEPORT, which the epoll transport has and the NIO
     * fallback has where the JDK offers it (Linux).
     */
    @WithDefault("1")
    String udpWorkers();

    Edns edns();

    Tcp tcp();

    Udp udp();

    /** One log line per query, in CoreDNS log-plugin style, on category {@code meshdns.querylog}. */
    @WithDefault("false")
    boolean queryLog();

    interface Edns {
        /** The largest UDP response we send to an EDNS client, and what our OPT advertises (RFC 6891). */
        @WithDefault("1232")
        String maxUdpPayload();
    }

    interface Tcp {
        /** A TCP connection with no traffic for this long is closed (RFC 7766 section 6.2.3). */
        @WithDefault("10s")
        String idleTimeout();

        /** TCP connections open at once; one more is closed as soon as it is accepted. */
        @WithDefault("1024")
        String maxConnections();

        /** TCP connections open at once from one client address. */
        @WithDefault("32")
        String maxConnectionsPerClient();

        /**
         * A TCP connection is closed this long after it was accepted, however busy: a client trickling
         * bytes to keep the idle timer alive cannot hold a connection forever (RFC 7766 section 6.2.3
         * lets a server close; clients reconnect).
         */
        @WithDefault("2m")
        String maxConnectionAge();

        /**
         * Answers queued for one TCP connection beyond this many bytes (not yet taken by the kernel) stop
         * reading its queries until the client reads; four times this closes it.
         */
        @WithDefault("65536")
        String outputBuffer();
    }

    interface Udp {
        /**
         * SO_RCVBUF and SO_SNDBUF of the UDP socket, in bytes: room for a burst of queries while the
         * event loop is busy (the kernel caps it at net.core.rmem_max unless we run privileged).
         */
        @WithDefault("4194304")
        String receiveBuffer();

        /**
         * Bound of the UDP fast path's memo of encoded answers: a table of this many slots, allocated
         * per snapshot (8 bytes a slot, about 150 more per remembered answer); 0 turns the fast path off.
         * The query log turns it off too.
         */
        @WithDefault("100000")
        String answerMemoEntries();
    }
}
