package io.meshdns.dns.forward;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

import io.meshdns.dns.metrics.DnsMetrics;
import io.micrometer.core.instrument.Counter;
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
    final Counter requests;
    final Timer duration;
    final Counter healthcheckFailures;
    final Counter loopsDetected;
    private final AtomicReferenceArray<Counter> responsesByRcode = new AtomicReferenceArray<>(16);

    UpstreamState(Upstream upstream, int maxFails, MeterRegistry registry) {
        this.upstream = upstream;
        this.maxFails = maxFails;
        this.registry = registry;
        String to = upstream.label();
        this.requests = Counter.builder("coredns.forward.requests").tag("to", to)
                .description("Queries sent to each upstream").register(registry);
        this.duration = Timer.builder("coredns.forward.request.duration").tag("to", to)
                .description("Round trip of queries to each upstream")
                .serviceLevelObjectives(BUCKETS).register(registry);
        this.healthcheckFailures = Counter.builder("coredns.forward.healthcheck.failures").tag("to", to)
                .description("Failed health probes per upstream").register(registry);
        this.loopsDetected = Counter.builder("meshdns.forward.loops.detected").tag("to", to)
                .description("Forwarding loops detected through this upstream (it is then no longer used)")
                .register(registry);
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

    private Counter responseCounter(int rcode) {
        int slot = rcode & 0xF; // extended rcodes are folded: only the basic 4 bits label the metric
        Counter c = responsesByRcode.get(slot);
        if (c == null) {
            c = Counter.builder("coredns.forward.responses").tag("to", upstream.label()).tag("rcode", Rcode.string(slot))
                    .description("Responses per upstream and rcode").register(registry);
            responsesByRcode.compareAndSet(slot, null, c);
        }
        return c;
    }
}
