package io.meshdns.dns.ratelimit;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * {@code meshdns.dns.rrl.*}: response-rate limiting of UDP answers per client prefix (Knot's and BIND's RRL) and
 * a global shed threshold. The defaults sit far above a normal node's traffic (see the package README).
 */
@ConfigMapping(prefix = "meshdns.dns.rrl")
public interface RrlConfig {
    /** Off: every UDP query goes on to the handlers (TCP is never limited here). */
    @WithDefault("true")
    boolean enabled();

    /** UDP answers per second one client prefix gets before the limit applies. */
    @WithDefault("10000")
    int responsesPerSecond();

    /** Clients never limited (BIND's {@code exempt-clients}): this machine's own processes by default. */
    @WithDefault("127.0.0.0/8,::1/128")
    java.util.List<String> exemptClients();

    /** Of the answers over the limit, every {@code slip}-th is a truncated (TC=1) reply that sends the client to TCP; 0: drop them all. */
    @WithDefault("2")
    int slip();

    /** The IPv4 prefix a client is counted by: 32 (each pod on its own) by default, as a node-local DNS wants. */
    @WithDefault("32")
    int ipv4PrefixLength();

    /** The IPv6 prefix a client is counted by. */
    @WithDefault("128")
    int ipv6PrefixLength();

    /** UDP queries per second from all clients together above which the excess is dropped (shed); 0: no shed. */
    @WithDefault("200000")
    int shedQueriesPerSecond();

    /** Client prefixes tracked at once (a fixed table: a flood of spoofed sources cannot grow it). */
    @WithDefault("65536")
    int tableSize();
}
