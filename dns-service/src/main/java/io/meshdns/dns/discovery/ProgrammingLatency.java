package io.meshdns.dns.discovery;

import io.meshdns.model.Catalog;
import io.meshdns.model.CatalogDelta;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.Kind;
import io.meshdns.model.ObjectRef;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.time.Instant;

/**
 * CoreDNS's {@code coredns_kubernetes_dns_programming_duration_seconds}: how long a change at the API server (an
 * EndpointSlice's {@code endpoints.kubernetes.io/last-change-trigger-time}: a pod turned ready, a Service changed)
 * took to be answered by this node: discovery's watch, its batch window, the stream, the compile and the swap.
 * Observed once the delta's snapshot is published; full snapshots (a start, a reconnect) are not observed, as their
 * slices' trigger times are old news. {@code service_kind} as CoreDNS labels it. The API server's and this node's
 * clocks must agree: a negative duration (clock skew) is not recorded.
 */
final class ProgrammingLatency {
    /** CoreDNS's buckets: 1 ms doubling up to about 9 minutes. */
    private static final Duration[] BUCKETS = buckets();
    private final Timer clusterIp;
    private final Timer headless;

    ProgrammingLatency(MeterRegistry registry) {
        this.clusterIp = timer(registry, "cluster_ip");
        this.headless = timer(registry, "headless_with_selector");
    }

    private static Timer timer(MeterRegistry registry, String kind) {
        return Timer.builder("coredns.kubernetes.dns.programming.duration")
                .description("From an EndpointSlice change at the API server to this node answering it")
                .tag("service_kind", kind).serviceLevelObjectives(BUCKETS).register(registry);
    }

    private static Duration[] buckets() {
        Duration[] b = new Duration[20];
        for (int i = 0; i < b.length; i++) b[i] = Duration.ofNanos(1_000_000L << i);
        return b;
    }

    /** Records every EndpointSlice of {@code delta} that carries its trigger time, at {@code now}. */
    void observe(CatalogDelta delta, Catalog catalog, Instant now) {
        for (CatalogEntry e : delta.upserts()) {
            if (!(e instanceof CatalogEntry.EndpointSlice slice)) continue;
            slice.triggeredAt().ifPresent(at -> {
                Duration took = Duration.between(at, now);
                if (!took.isNegative()) timerFor(catalog, slice).record(took);
            });
        }
    }

    private Timer timerFor(Catalog catalog, CatalogEntry.EndpointSlice slice) {
        CatalogEntry service = slice.serviceName() == null ? null
                : catalog.get(new ObjectRef(slice.cluster(), Kind.SERVICE, slice.namespace(), slice.serviceName()));
        boolean headlessService = service instanceof CatalogEntry.Service s && s.clusterIps().isEmpty();
        return headlessService ? headless : clusterIp;
    }
}
