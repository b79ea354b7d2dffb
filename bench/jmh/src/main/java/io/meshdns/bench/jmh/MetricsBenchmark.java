package io.meshdns.bench.jmh;

import io.meshdns.dns.metrics.DnsMetrics;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The metrics share of one fast-path hit, with the Prometheus registry dns-service runs with:
 * {@code keyed} looks the three CoreDNS meters up by freshly allocated keys (what every hit did before
 * the memo kept its meters), {@code resolved} updates meters resolved once per remembered answer.
 * Run with {@code -prof gc} to see the allocation per hit.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class MetricsBenchmark {
    private DnsMetrics metrics;
    private DnsMetrics.Meters meters;
    private DnsMetrics.Meters viaComposite;

    @Setup
    public void setup() {
        metrics = new DnsMetrics(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
        metrics.setServer("dns://127.0.0.1:53");
        meters = metrics.meters("cluster.local.", "udp", false, 1, 0);
        // What Quarkus injects: a composite registry (Metrics.globalRegistry) holding the Prometheus one.
        io.micrometer.core.instrument.composite.CompositeMeterRegistry composite = new io.micrometer.core.instrument.composite.CompositeMeterRegistry();
        composite.add(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
        DnsMetrics compositeMetrics = new DnsMetrics(composite);
        compositeMetrics.setServer("dns://127.0.0.1:53");
        viaComposite = compositeMetrics.meters("cluster.local.", "udp", false, 1, 0);
    }

    @Benchmark
    public void keyed() {
        metrics.request("cluster.local.", "udp", false, 1, 0, 42_000, 40, 120, false);
    }

    @Benchmark
    public void resolved() {
        meters.record(42_000, 40, 120, false);
    }

    /** {@link #resolved} with the meters registered through a composite registry holding the Prometheus one. */
    @Benchmark
    public void resolvedViaComposite() {
        viaComposite.record(42_000, 40, 120, false);
    }
}
