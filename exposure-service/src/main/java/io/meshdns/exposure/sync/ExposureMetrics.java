package io.meshdns.exposure.sync;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** ExternalDNS's controller metrics under meshdns_exposure_*. */
final class ExposureMetrics {

    private final MeterRegistry registry;
    private final AtomicLong lastSync = new AtomicLong();
    private final Map<String, AtomicLong> records = new ConcurrentHashMap<>();
    private final Counter errors;
    private final Counter ownerMismatch;

    ExposureMetrics(MeterRegistry registry) {
        this.registry = registry;
        registry.gauge("meshdns.exposure.last.sync.timestamp.seconds", lastSync, AtomicLong::get);
        errors = Counter.builder("meshdns.exposure.errors").description("failed reconcile passes (source or provider)").register(registry);
        ownerMismatch = Counter.builder("meshdns.exposure.owner.mismatch")
                .description("desired records not applied because another owner (or nobody) owns the name").register(registry);
    }

    /** meshdns_exposure_zone_reads_total{kind,target}: how each target's zones were read (ixfr, axfr, cached). */
    void zoneReads(io.meshdns.exposure.provider.Provider provider) {
        for (String kind : provider.zoneReadCounts().keySet()) {
            io.micrometer.core.instrument.FunctionCounter.builder("meshdns.exposure.zone.reads", provider,
                            p -> p.zoneReadCounts().getOrDefault(kind, 0L))
                    .tags("kind", kind, "target", provider.describe())
                    .description("zone reads by kind: ixfr, axfr, or cached (SOA serial unchanged, no transfer)")
                    .register(registry);
        }
    }

    void synced(long epochSeconds) {
        lastSync.set(epochSeconds);
    }

    void records(Map<String, Integer> byType) {
        for (String type : new String[] {"A", "AAAA", "CNAME", "SRV", "TXT", "NS", "MX", "PTR"}) {
            records.computeIfAbsent(type, t -> {
                var v = new AtomicLong();
                registry.gauge("meshdns.exposure.records", io.micrometer.core.instrument.Tags.of("type", t), v, AtomicLong::get);
                return v;
            }).set(byType.getOrDefault(type, 0));
        }
    }

    void error() {
        errors.increment();
    }

    void ownerMismatches(int n) {
        if (n > 0) ownerMismatch.increment(n);
    }

    void changes(String action, int n) {
        if (n > 0) registry.counter("meshdns.exposure.changes", "action", action).increment(n);
    }
}
