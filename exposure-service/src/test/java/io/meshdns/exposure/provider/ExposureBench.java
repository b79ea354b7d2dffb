package io.meshdns.exposure.provider;

import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.plan.DomainFilter;
import io.meshdns.exposure.plan.Policy;
import io.meshdns.exposure.registry.TxtNameMapper;
import io.meshdns.exposure.registry.TxtRegistry;
import io.meshdns.exposure.source.Desired;
import io.meshdns.exposure.sync.Reconciler;
import io.meshdns.testsupport.dns.BindServer;
import io.meshdns.exposure.testing.Rfc2136Targets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Benchmark, not a test (run by bench/exposure-bind.sh, skipped in the normal build):
 * 1. N records into an empty BIND9 zone: wall time and UPDATE message count;
 * 2. one record change with N records present: time from the start of a pass until dig shows it.
 */
@EnabledIfSystemProperty(named = "meshdns.bench", matches = "true")
class ExposureBench {

    @Test
    void bench() throws Exception {
        int n = Integer.getInteger("meshdns.bench.records", 10_000);
        try (BindServer bind = new BindServer("hmac-sha256", List.of("bench.test"))) {
            bind.start("");
            var provider = Rfc2136Targets.provider(bind);
            var r = new Reconciler(new TxtRegistry(provider, "bench", TxtNameMapper.plain(), 300), Policy.SYNC, DomainFilter.ALL, false);
            var endpoints = new ArrayList<Endpoint>(n);
            for (int i = 0; i < n; i++) {
                endpoints.add(new Endpoint("svc" + i + ".ns" + (i % 50) + ".bench.test", "A",
                        List.of("10." + (i >> 16 & 255) + "." + (i >> 8 & 255) + "." + (i & 255)), 60,
                        Map.of(Endpoint.RESOURCE_LABEL, "service/ns" + (i % 50) + "/svc" + i), ""));
            }
            long t0 = System.nanoTime();
            var first = r.reconcile(new Desired(endpoints, Set.of()));
            long fill = (System.nanoTime() - t0) / 1_000_000;
            System.out.printf("BENCH fill: %d records (+%d TXT) into empty BIND9 in %d ms, %d UPDATE messages%n",
                    first.changes().create().size(), first.changes().create().size(), fill, provider.lastUpdateMessages());

            long t1 = System.nanoTime();
            r.reconcile(new Desired(endpoints, Set.of()));
            System.out.printf("BENCH steady pass (AXFR of %d RRsets + plan, no changes): %d ms, %d bytes read%n", 2 * n,
                    (System.nanoTime() - t1) / 1_000_000, provider.lastReadBytes());
            for (int round = 0; round < 3; round++) {
                long t = System.nanoTime();
                r.reconcile(new Desired(endpoints, Set.of()));
                System.out.printf("BENCH unchanged pass (SOA serial same as our last read: %d AXFR): %d ms, %d bytes read%n",
                        provider.lastTransfers(), (System.nanoTime() - t) / 1_000_000, provider.lastReadBytes());
            }

            endpoints.set(0, endpoints.get(0).withTargets(List.of("192.0.2.77")));
            long t2 = System.nanoTime();
            r.reconcile(new Desired(endpoints, Set.of()));
            while (!bind.dig("svc0.ns0.bench.test", "A").equals(List.of("192.0.2.77"))) {
                Thread.onSpinWait();
            }
            System.out.printf("BENCH one change visible to dig after %d ms (pass: AXFR + plan + 1 UPDATE; "
                    + "the event path adds meshdns.exposure.debounce, default 1 s)%n", (System.nanoTime() - t2) / 1_000_000);
        }
    }
}
