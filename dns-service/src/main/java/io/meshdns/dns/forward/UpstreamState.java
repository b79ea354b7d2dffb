package io.meshdns.dns.forward;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

import io.meshdns.dns.metrics.Counters;
import io.meshdns.dns.metrics.DnsMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.xbill.DNS.Rcode;

/**
 * Health and meters of one upstream. Meters are created once here so the query path only
 * increments pre-resolved instances (no tag building per query).
 */
final class UpstreamState {
    private static final Duration[] BUCKETS = DnsMetrics.coreDnsLatencyBuckets();

    final Upstream upstream;
    private final int maxFails;
    private final AtomicInteger fails = new AtomicInteger();
    private volatile boolean looping;
    /** Set while a health probe is outstanding, so probes never pile up. */
    final java.util.concurrent.atomic.AtomicBoolean probing = new java.util.concurrent.atomic.AtomicBoolean();

    private final MeterRegistry registry;
    final LongAdder requests;
    final Timer duration;
    final LongAdder healthcheckFailures;
    final LongAdder loopsDetected;
    private final AtomicReferenceArray<LongAdder> responsesByRcode = new AtomicReferenceArray<>(16);

    UpstreamState(Upstream upstream, int maxFails, MeterRegistry registry) {
        this.upstream = upstream;
        this.maxFails = maxFails;
        this.registry = registry;
        String to = upstream.label();
        this.requests = Counters.register(registry, "coredns.forward.requests", "Queries sent to each upstream", "to", to);
        this.duration = Timer.builder("coredns.forward.request.duration").tag("to", to)
                .description("Round trip of queries to each upstream")
                .serviceLevelObjectives(BUCKETS).register(registry);
        this.healthcheckFailures = Counters.register(registry, "coredns.forward.healthcheck.failures",
                "Failed health probes per upstream", "to", to);
        this.loopsDetected = Counters.register(registry, "meshdns.forward.loops.detected",
                "Forwarding loops detected through this upstream (it is then no longer used)", "to", to);
        for (int rcode : new int[] {Rcode.NOERROR, Rcode.NXDOMAIN, Rcode.SERVFAIL, Rcode.REFUSED}) {
            responseCounter(rcode);
        }
    }

    boolean isHealthy() {
        return fails.get() < maxFails;
    }

    boolean isLooping() {
        return looping;
    }

    void markLooping() {
        if (!looping) {
            looping = true;
            loopsDetected.increment();
        }
    }

    boolean hasFailures() {
        return fails.get() > 0;
    }

    void success() {
        if (fails.get() != 0) {
            fails.set(0);
        }
    }

    void failure() {
        fails.incrementAndGet();
    }

    int fails() {
        return fails.get();
    }

    void recordResponse(int rcode, long nanos) {
        duration.record(nanos, TimeUnit.NANOSECONDS);
        responseCounter(rcode).increment();
    }

    private LongAdder responseCounter(int rcode) {
        int slot = rcode & 0xF; // extended rcodes are folded: only the basic 4 bits label the metric
        LongAdder c = responsesByRcode.get(slot);
        if (c == null) {
            synchronized (responsesByRcode) { // one adder per meter: a second would never be read
                c = responsesByRcode.get(slot);
                if (c == null) {
                    c = Counters.register(registry, "coredns.forward.responses", "Responses per upstream and rcode",
                            "to", upstream.label(), "rcode", Rcode.string(slot));
                    responsesByRcode.set(slot, c);
                }
            }
        }
        return c;
    }
}
