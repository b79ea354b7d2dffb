package io.meshdns.dns.forward;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Forwarding keys. {@code meshdns.dns.upstreams} and {@code meshdns.dns.zone-forwards} sit directly
 * under {@code meshdns.dns} (issue contract); the rest under {@code meshdns.dns.forward.*}.
 * Validated into {@link ForwardSettings} at start.
 */
@ConfigMapping(prefix = "meshdns.dns")
public interface ForwardConfig {

    /** host[:port] entries (port 53 by default, IPv6 as [addr]:port); empty = nameservers of resolv.conf. */
    Optional<List<String>> upstreams();

    /**
     * Stub domains: {@code zone=host[:port][,host[:port]...]}. Because the list is comma separated,
     * an element without '=' adds a server to the zone before it.
     */
    Optional<List<String>> zoneForwards();

    Forward forward();

    interface Forward {
        /** The file read when {@code meshdns.dns.upstreams} is empty. */
        @WithDefault("/etc/resolv.conf")
        String resolvConf();

        /** sequential | random | round-robin, as CoreDNS's forward policy. */
        @WithDefault("random")
        String policy();

        /** Always talk TCP to upstreams. */
        @WithDefault("false")
        boolean forceTcp();

        /** Queries in flight to upstreams; past it the answer is REFUSED. */
        @WithDefault("1000")
        int maxConcurrent();

        /** Wait for one upstream before trying the next. */
        @WithDefault("2s")
        Duration timeout();

        /** Budget for one query across all upstream attempts. */
        @WithDefault("5s")
        Duration totalTimeout();

        /** Interval of the {@code . IN NS} health probes sent to an upstream after it failed. */
        @WithDefault("0.5s")
        Duration healthCheck();

        /** Consecutive failures after which an upstream is considered down. */
        @WithDefault("2")
        int maxFails();

        /** Send the loop-detection probe (CoreDNS loop plugin) at start. */
        @WithDefault("true")
        boolean loopDetect();

        /** Delay before the loop probe, so that our own listeners are up. */
        @WithDefault("2s")
        Duration loopProbeDelay();

        /**
         * UDP sockets per address family, each on a kernel-chosen random port; each upstream query
         * leaves from one picked at random (RFC 5452 source-port randomisation).
         */
        @WithDefault("256")
        int udpSockets();

        /** Queries a socket carries before it is replaced by one on a new random port (1 = a port per query). */
        @WithDefault("256")
        int udpSocketQueries();

        /** 0x20: randomise the letter case of the upstream question and accept only answers echoing it. */
        @WithDefault("false")
        boolean caseRandomization();

        /** DNS over TLS upstreams ({@code tls://host[:853][#server-name]}, RFC 7858). */
        Tls tls();

        /** TCP and TLS connections to upstreams: reused and pipelined (RFC 7766). */
        Connections connections();
    }

    interface Tls {
        /** The name a tls:// upstream's certificate must carry, when its entry gives none after '#'. */
        Optional<String> serverName();

        /** PEM CA certificates that tls:// upstreams' certificates must chain to (default: the JDK's trust store). */
        Optional<String> caFile();
    }

    interface Connections {
        /** An upstream connection with nothing in flight for this long is closed (CoreDNS's {@code expire}). */
        @WithDefault("10s")
        Duration idleTimeout();

        /** Connections kept open to one upstream. */
        @WithDefault("2")
        int maxPerUpstream();

        /** Queries in flight on one connection before another is opened (or, at the cap, they share). */
        @WithDefault("64")
        int maxInFlight();
    }
}
