package io.meshdns.discovery.wiring;

import io.meshdns.discovery.catalog.CatalogAggregator;

import io.meshdns.discovery.config.DiscoveryConfig;
import io.meshdns.discovery.metrics.DiscoveryMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import io.meshdns.discovery.vip.VipAllocator;
import io.meshdns.discovery.vip.VipEnricher;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Named;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/** Wires the pure catalog classes into CDI. */
@ApplicationScoped
public class CatalogBeans {

    /** The one background scheduler: batch flushes, cluster ticks, rescans. Tasks must be short. */
    @Produces
    @ApplicationScoped
    @Named("discovery-scheduler")
    ScheduledExecutorService scheduler() {
        return Executors.newScheduledThreadPool(1, r -> {
            Thread t = new Thread(r, "meshdns-discovery");
            t.setDaemon(true);
            return t;
        });
    }

    void closeScheduler(@Disposes @Named("discovery-scheduler") ScheduledExecutorService s) {
        s.shutdownNow();
    }

    @Produces
    @ApplicationScoped
    CatalogAggregator aggregator(DiscoveryConfig config, @Named("discovery-scheduler") ScheduledExecutorService scheduler,
                                 Instance<VipAllocator> allocators) {
        CatalogAggregator a = new CatalogAggregator(System.currentTimeMillis(), config.batchWindow().toMillis(), config.historySize(), scheduler);
        // vip.CentralVipAllocator; NONE only if no allocator bean is present.
        VipAllocator allocator = allocators.isResolvable() ? allocators.get() : VipAllocator.NONE;
        a.setEnricher(new VipEnricher(allocator));
        // The allocator frees the VIPs of hosts that left the catalog: it needs to see every version.
        if (allocator instanceof CatalogAggregator.Listener l) a.addListener(l);
        // A follower's table changes under its catalog (the leader's writes), as does a new leader's.
        if (allocator instanceof io.meshdns.discovery.vip.CentralVipAllocator central) central.onTableChanged(a::reapplyEnricher);
        return a;
    }

    @Produces
    @ApplicationScoped
    DiscoveryMetrics metrics(MeterRegistry registry, CatalogAggregator aggregator) {
        return new DiscoveryMetrics(registry, aggregator);
    }
}
