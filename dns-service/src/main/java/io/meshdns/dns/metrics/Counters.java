package io.meshdns.dns.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counters we increment ourselves and Micrometer reads at scrape time, as function counters.
 *
 * <p>Why not Micrometer's {@code Counter}: Quarkus may attach the Prometheus registry to the global
 * composite only after the StartupEvent that opens the DNS listeners (the order of its runtime-init
 * steps moved when quarkus-rest left dns-service), and the increments a composite counter takes before
 * it has a child registry are lost: the first queries of a node-local DNS restarting under load went
 * uncounted (DnsServiceProcessTest.fastPathAnswersAreCounted). A function counter reads the adder
 * whenever the registry arrives. It is also one {@code LongAdder.increment} on the query path instead
 * of a walk through the composite. Timers have no such form (nothing else gives CoreDNS's histogram
 * buckets), so a histogram can still miss the queries of that first moment.
 */
public final class Counters {
    private Counters() {
    }

    /** Registers {@code name} with {@code tags} (key, value, ...) and returns the adder to increment. */
    public static LongAdder register(MeterRegistry registry, String name, String description, String... tags) {
        LongAdder adder = new LongAdder();
        FunctionCounter.builder(name, adder, LongAdder::sum).tags(tags).description(description).register(registry);
        return adder;
    }
}
