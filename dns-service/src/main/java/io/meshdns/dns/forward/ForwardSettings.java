package io.meshdns.dns.forward;

import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Validated forwarding settings. {@link #from} turns {@link ForwardConfig} into this record or fails
 * with a message naming the offending key.
 */
public record ForwardSettings(
        List<Upstream> upstreams,
        List<ZoneForward> zoneForwards,
        ForwardPolicy policy,
        boolean forceTcp,
        int maxConcurrent,
        Duration timeout,
        Duration totalTimeout,
        Duration healthCheck,
        int maxFails,
        boolean loopDetect,
        Duration loopProbeDelay,
        int udpSockets,
        int udpSocketQueries,
        boolean caseRandomization,
        StreamSettings streams) {

    /**
     * TCP and TLS upstream connections: closed after {@code idleTimeout} with nothing in flight, at most
     * {@code maxPerUpstream} per upstream, {@code maxInFlight} queries pipelined on one before another opens;
     * {@code caFile} (null: the JDK's trust store) for tls:// upstreams.
     */
    public record StreamSettings(Duration idleTimeout, int maxPerUpstream, int maxInFlight, Path caFile) {
        public static final StreamSettings DEFAULT = new StreamSettings(Duration.ofSeconds(10), 2, 64, null);

        public StreamSettings {
            require(positive(idleTimeout), "meshdns.dns.forward.connections.idle-timeout", "must be > 0");
            require(maxPerUpstream > 0 && maxPerUpstream <= 64, "meshdns.dns.forward.connections.max-per-upstream", "must be 1-64");
            require(maxInFlight > 0 && maxInFlight <= 65535, "meshdns.dns.forward.connections.max-in-flight", "must be 1-65535");
        }
    }

    public ForwardSettings {
        upstreams = List.copyOf(upstreams);
        zoneForwards = List.copyOf(zoneForwards);
        require(maxConcurrent > 0, "meshdns.dns.forward.max-concurrent", "must be > 0");
        require(positive(timeout), "meshdns.dns.forward.timeout", "must be > 0");
        require(positive(totalTimeout), "meshdns.dns.forward.total-timeout", "must be > 0");
        require(positive(healthCheck), "meshdns.dns.forward.health-check", "must be > 0");
        require(maxFails > 0, "meshdns.dns.forward.max-fails", "must be > 0");
        require(!loopProbeDelay.isNegative(), "meshdns.dns.forward.loop-probe-delay", "must be >= 0");
        require(udpSockets > 0 && udpSockets <= 4096, "meshdns.dns.forward.udp-sockets", "must be 1-4096");
        require(udpSocketQueries > 0 && udpSocketQueries <= 65536, "meshdns.dns.forward.udp-socket-queries", "must be 1-65536");
    }

    /** Defaults (as the config mapping's) with the given upstreams; for tests and tools. */
    public static ForwardSettings of(List<Upstream> upstreams) {
        return new ForwardSettings(upstreams, List.of(), ForwardPolicy.RANDOM, false, 1000,
                Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofMillis(500), 2, false,
                Duration.ofSeconds(2), 256, 256, false, StreamSettings.DEFAULT);
    }

    public ForwardSettings withPolicy(ForwardPolicy p) {
        return with(c -> c.policy = p);
    }

    public ForwardSettings withForceTcp(boolean f) {
        return with(c -> c.forceTcp = f);
    }

    public ForwardSettings withMaxConcurrent(int m) {
        return with(c -> c.maxConcurrent = m);
    }

    public ForwardSettings withTimeouts(Duration perUpstream, Duration total) {
        return with(c -> {
            c.timeout = perUpstream;
            c.totalTimeout = total;
        });
    }

    public ForwardSettings withZoneForwards(List<ZoneForward> z) {
        return with(c -> c.zoneForwards = z);
    }

    /** 0x20: random letter case in the upstream question (the answer must echo it). */
    public ForwardSettings withCaseRandomization(boolean on) {
        return with(c -> c.caseRandomization = on);
    }

    /** The UDP socket pool: sockets per address family, and queries per socket before it is replaced. */
    public ForwardSettings withUdpSockets(int sockets, int queriesPerSocket) {
        return with(c -> {
            c.udpSockets = sockets;
            c.udpSocketQueries = queriesPerSocket;
        });
    }

    public ForwardSettings withLoopDetect(boolean on, Duration delay) {
        return with(c -> {
            c.loopDetect = on;
            c.loopProbeDelay = delay;
        });
    }

    /** These settings with {@code change} applied, checked like any others (the canonical constructor). */
    private ForwardSettings with(Consumer<Copy> change) {
        Copy copy = new Copy();
        change.accept(copy);
        return copy.build();
    }

    /**
     * Every component as a slot that starts at this record's value, for {@link #with}: the one place besides the
     * canonical constructor that lists them all, so each withX names only what it changes.
     */
    private final class Copy {
        List<Upstream> upstreams = upstreams();
        List<ZoneForward> zoneForwards = zoneForwards();
        ForwardPolicy policy = policy();
        boolean forceTcp = forceTcp();
        int maxConcurrent = maxConcurrent();
        Duration timeout = timeout();
        Duration totalTimeout = totalTimeout();
        Duration healthCheck = healthCheck();
        int maxFails = maxFails();
        boolean loopDetect = loopDetect();
        Duration loopProbeDelay = loopProbeDelay();
        int udpSockets = udpSockets();
        int udpSocketQueries = udpSocketQueries();
        boolean caseRandomization = caseRandomization();
        StreamSettings streams = streams();

        ForwardSettings build() {
            return new ForwardSettings(upstreams, zoneForwards, policy, forceTcp, maxConcurrent, timeout, totalTimeout,
                    healthCheck, maxFails, loopDetect, loopProbeDelay, udpSockets, udpSocketQueries, caseRandomization, streams);
        }
    }

    /**
     * @param listenAddress our own {@code meshdns.dns.bind-address}
     * @param listenPort    our own {@code meshdns.dns.port} (0 = random, cannot collide)
     */
    public static ForwardSettings from(ForwardConfig c, String listenAddress, int listenPort) {
        ForwardConfig.Forward f = c.forward();
        List<Upstream> upstreams = new ArrayList<>();
        List<String> specs = c.upstreams().orElse(List.of()).stream().filter(s -> !s.isBlank()).toList();
        String key = "meshdns.dns.upstreams";
        if (specs.isEmpty()) {
            key = "meshdns.dns.forward.resolv-conf";
            try {
                specs = ResolvConf.nameservers(Files.readString(Path.of(f.resolvConf())));
            } catch (IOException e) {
                throw new IllegalArgumentException("meshdns.dns.upstreams is empty and "
                        + "meshdns.dns.forward.resolv-conf '" + f.resolvConf() + "' cannot be read: " + e.getMessage());
            }
            if (specs.isEmpty()) {
                throw new IllegalArgumentException("meshdns.dns.upstreams is empty and "
                        + "meshdns.dns.forward.resolv-conf '" + f.resolvConf() + "' lists no nameserver");
            }
        }
        for (String spec : specs) {
            upstreams.add(Upstream.parse(spec, key, f.tls().serverName().orElse(null)));
        }
        List<ZoneForward> zoneForwards = ZoneForward.parse(c.zoneForwards().orElse(List.of()));
        for (Upstream u : upstreams) {
            rejectSelf(u, key, listenAddress, listenPort);
        }
        for (ZoneForward z : zoneForwards) {
            for (Upstream u : z.servers()) {
                rejectSelf(u, ZoneForward.KEY, listenAddress, listenPort);
            }
        }
        return new ForwardSettings(upstreams, zoneForwards, ForwardPolicy.parse(f.policy()), f.forceTcp(),
                f.maxConcurrent(), f.timeout(), f.totalTimeout(), f.healthCheck(), f.maxFails(), f.loopDetect(),
                f.loopProbeDelay(), f.udpSockets(), f.udpSocketQueries(), f.caseRandomization(), streams(f));
    }

    public ForwardSettings withStreams(StreamSettings st) {
        return with(c -> c.streams = st);
    }

    private static StreamSettings streams(ForwardConfig.Forward f) {
        Path ca = f.tls().caFile().filter(s -> !s.isBlank()).map(Path::of).orElse(null);
        if (ca != null && !Files.isReadable(ca)) {
            throw new IllegalArgumentException("meshdns.dns.forward.tls.ca-file: '" + ca + "' cannot be read");
        }
        return new StreamSettings(f.connections().idleTimeout(), f.connections().maxPerUpstream(), f.connections().maxInFlight(), ca);
    }

    /** Forwarding to our own listener is the simplest loop; refuse it before it happens. */
    static void rejectSelf(Upstream u, String key, String listenAddress, int listenPort) {
        if (listenPort == 0 || u.port() != listenPort || listenAddress == null) {
            return;
        }
        InetAddress listen;
        try {
            listen = InetAddress.getByName(listenAddress);
        } catch (UnknownHostException e) {
            return; // not ours to report: the listener validates its own key
        }
        InetAddress target = u.address().getAddress();
        boolean self = target.equals(listen);
        if (!self && listen.isAnyLocalAddress()) {
            try {
                self = target.isLoopbackAddress() || target.isAnyLocalAddress()
                        || NetworkInterface.getByInetAddress(target) != null;
            } catch (SocketException e) {
                self = target.isLoopbackAddress();
            }
        }
        if (self) {
            throw new IllegalArgumentException(key + ": upstream " + u.label()
                    + " is this server's own listen address (meshdns.dns.bind-address/meshdns.dns.port): "
                    + "forwarding to it would loop");
        }
    }

    private static boolean positive(Duration d) {
        return d != null && !d.isNegative() && !d.isZero();
    }

    private static void require(boolean ok, String key, String message) {
        if (!ok) {
            throw new IllegalArgumentException(key + ": " + message);
        }
    }
}
