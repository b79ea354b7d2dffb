package io.meshdns.dns.server;

import io.meshdns.dns.metrics.Counters;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the TCP limits did, for an operator to tell a hostile or broken client from a load problem:
 * {@code meshdns_dns_tcp_connections} (open now),
 * {@code meshdns_dns_tcp_connections_refused_total{reason}} (closed at accept: {@code max-connections},
 * {@code max-connections-per-client}),
 * {@code meshdns_dns_tcp_connections_closed_total{reason}} (closed by us later: {@code max-connection-age},
 * {@code output-limit}, {@code malformed}), and
 * {@code meshdns_dns_tcp_read_pauses_total} (a connection stopped being read because its answers were not drained),
 * {@code meshdns_dns_tcp_requests_in_flight} (requests read and not yet finished: back at zero when TCP is quiet).
 */
@ApplicationScoped
public class ListenerMetrics {
    static final String REFUSED_MAX_CONNECTIONS = "max-connections";
    static final String REFUSED_PER_CLIENT = "max-connections-per-client";
    static final String CLOSED_AGE = "max-connection-age";
    static final String CLOSED_OUTPUT = "output-limit";
    static final String CLOSED_MALFORMED = "malformed";
    /** An idle connection closed to make room for a new one at a connection cap (RFC 7766 section 6.2.3). */
    static final String CLOSED_EVICTED = "evicted-idle";

    private final AtomicInteger open = new AtomicInteger();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final LongAdder refusedTotal;
    private final LongAdder refusedPerClient;
    private final LongAdder closedAge;
    private final LongAdder closedOutput;
    private final LongAdder closedMalformed;
    private final LongAdder closedEvicted;
    private final LongAdder pauses;

    @Inject
    public ListenerMetrics(MeterRegistry registry) {
        Gauge.builder("meshdns.dns.tcp.connections", open, AtomicInteger::get)
                .description("TCP connections open now").register(registry);
        Gauge.builder("meshdns.dns.tcp.requests.in.flight", inFlight, AtomicInteger::get)
                .description("TCP requests read and not yet finished (answered, or dropped), over all connections")
                .register(registry);
        String refused = "TCP connections closed as soon as they were accepted, by the limit that refused them";
        refusedTotal = Counters.register(registry, "meshdns.dns.tcp.connections.refused", refused, "reason", REFUSED_MAX_CONNECTIONS);
        refusedPerClient = Counters.register(registry, "meshdns.dns.tcp.connections.refused", refused, "reason", REFUSED_PER_CLIENT);
        String closed = "TCP connections the server closed, by why (idle ones are not counted here)";
        closedAge = Counters.register(registry, "meshdns.dns.tcp.connections.closed", closed, "reason", CLOSED_AGE);
        closedOutput = Counters.register(registry, "meshdns.dns.tcp.connections.closed", closed, "reason", CLOSED_OUTPUT);
        closedMalformed = Counters.register(registry, "meshdns.dns.tcp.connections.closed", closed, "reason", CLOSED_MALFORMED);
        closedEvicted = Counters.register(registry, "meshdns.dns.tcp.connections.closed", closed, "reason", CLOSED_EVICTED);
        pauses = Counters.register(registry, "meshdns.dns.tcp.read.pauses",
                "Times a TCP connection stopped being read because the client did not read its answers");
    }

    AtomicInteger open() {
        return open;
    }

    AtomicInteger inFlight() {
        return inFlight;
    }

    void refused(String reason) {
        (REFUSED_PER_CLIENT.equals(reason) ? refusedPerClient : refusedTotal).increment();
    }

    void closed(String reason) {
        switch (reason) {
            case CLOSED_AGE -> closedAge.increment();
            case CLOSED_OUTPUT -> closedOutput.increment();
            case CLOSED_EVICTED -> closedEvicted.increment();
            default -> closedMalformed.increment();
        }
    }

    void paused() {
        pauses.increment();
    }
}
