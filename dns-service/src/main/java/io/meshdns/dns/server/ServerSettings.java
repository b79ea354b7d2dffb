package io.meshdns.dns.server;

import io.meshdns.dns.base.Cidr;

import static io.meshdns.dns.base.ConfigValues.parseBoolean;
import static io.meshdns.dns.base.ConfigValues.parseCidrs;
import static io.meshdns.dns.base.ConfigValues.parseDuration;
import static io.meshdns.dns.base.ConfigValues.parseInt;

import io.meshdns.dns.InvalidConfigException;
import io.netty.util.NetUtil;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;

/**
 * {@link ServerConfig} checked and converted once at start. Every failure names its key, so a
 * typo stops the service with a message an operator can act on instead of a half-working listener.
 */
public record ServerSettings(List<String> bindAddresses, int port, ClientAcl acl, List<Cidr> allowedClients,
                             int maxUdpPayload, TcpLimits tcp, boolean reusePort, Duration drain, boolean queryLog,
                             int udpWorkers) {

    public ServerSettings {
        bindAddresses = List.copyOf(bindAddresses);
        if (bindAddresses.isEmpty()) {
            throw new IllegalArgumentException("no bind address");
        }
    }

    /** The first address the listeners bind (the only one unless node-local wiring lists several). */
    public String bindAddress() {
        return bindAddresses.get(0);
    }

    /** Whether the first bind address is IPv6. */
    public boolean ipv6() {
        return isIpv6(bindAddress());
    }

    static boolean isIpv6(String literal) {
        return literal.indexOf(':') >= 0;
    }

    /** What one TCP client may hold: connections, their age and idle time, and queued answers. */
    public record TcpLimits(Duration idleTimeout, int maxConnections, int maxConnectionsPerClient,
                            Duration maxConnectionAge, int outputBuffer) {
    }

    /** RFC 6891: a requestor's payload size below 512 is treated as 512. */
    public static final int MIN_UDP_PAYLOAD = 512;
    /** The drain when reuse-port is on and {@code meshdns.dns.drain} is not set. */
    public static final Duration DEFAULT_DRAIN = Duration.ofSeconds(5);

    public static ServerSettings from(ServerConfig config) {
        String bind = config.bindAddress().trim();
        if (bind.startsWith("[") && bind.endsWith("]")) {
            bind = bind.substring(1, bind.length() - 1);
        }
        byte[] bindBytes = NetUtil.createByteArrayFromIpAddressString(bind);
        if (bindBytes == null) {
            throw new InvalidConfigException(ServerConfig.BIND_ADDRESS,
                    "'" + config.bindAddress() + "' is not an IPv4 or IPv6 address literal");
        }
        int port = parseInt(ServerConfig.PORT, config.port(), 0, 65535);
        List<Cidr> cidrs = parseCidrs(ServerConfig.ALLOWED_CLIENTS, config.allowedClients());
        int payload = parseInt(ServerConfig.MAX_UDP_PAYLOAD, config.edns().maxUdpPayload(), MIN_UDP_PAYLOAD, 65535);
        ServerConfig.Tcp tcp = config.tcp();
        TcpLimits limits = new TcpLimits(parseDuration(ServerConfig.TCP_IDLE_TIMEOUT, tcp.idleTimeout()),
                parseInt(ServerConfig.TCP_MAX_CONNECTIONS, tcp.maxConnections(), 1, 1_000_000),
                parseInt(ServerConfig.TCP_MAX_CONNECTIONS_PER_CLIENT, tcp.maxConnectionsPerClient(), 1, 1_000_000),
                parseDuration(ServerConfig.TCP_MAX_CONNECTION_AGE, tcp.maxConnectionAge()),
                parseInt(ServerConfig.TCP_OUTPUT_BUFFER, tcp.outputBuffer(), 4096, 64 * 1024 * 1024));
        boolean reusePort = parseBoolean(ServerConfig.REUSE_PORT, config.reusePort());
        Duration drain = config.drain().map(d -> parseDuration(ServerConfig.DRAIN, d, true))
                .orElse(reusePort ? DEFAULT_DRAIN : Duration.ZERO);
        int udpWorkers = parseInt(ServerConfig.UDP_WORKERS, config.udpWorkers(), 1, ServerConfig.MAX_UDP_WORKERS);
        return new ServerSettings(List.of(NetUtil.bytesToIpAddress(bindBytes)), port, new ClientAcl(cidrs), cidrs,
                payload, limits, reusePort, drain, config.queryLog(), udpWorkers);
    }

    /** These settings with the listeners on every one of {@code addresses} (literals validated by their owner). */
    public ServerSettings withBindAddresses(List<String> addresses) {
        for (String address : addresses) {
            if (NetUtil.createByteArrayFromIpAddressString(address) == null) {
                throw new IllegalArgumentException(address + " is not an address literal");
            }
        }
        return new ServerSettings(addresses, port, acl, allowedClients, maxUdpPayload, tcp, reusePort,
                drain, queryLog, udpWorkers);
    }

    /**
     * Whether the UDP sockets are opened with SO_REUSEPORT: asked for ({@code reuse-port}, to share the port with
     * another instance), or needed to open several on one port ({@code udp-workers}).
     */
    public boolean udpReusePort() {
        return reusePort || udpWorkers > 1;
    }

    /** The idle timeout of TCP connections (RFC 7766 section 6.2.3). */
    public Duration tcpIdleTimeout() {
        return tcp.idleTimeout();
    }
}
