package io.meshdns.dns.metrics;

import io.prometheus.client.Collector;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * CoreDNS's three per-query histograms, written at scrape time from the adders every {@link DnsMetrics.Meters}
 * fills: {@code coredns_dns_request_duration_seconds{server,type,zone}} and
 * {@code coredns_dns_request_size_bytes} / {@code coredns_dns_response_size_bytes{proto,server,zone}}.
 *
 * <p>Why a Prometheus collector and not Micrometer meters: Micrometer has no histogram it reads from outside
 * (only counters and gauges have function forms), and its Timer and DistributionSummary cost about 0.45 µs a
 * query together (a time-window max that reads the clock, a bucket search, count and total, for each of the three,
 * behind the composite registry: {@code MetricsBenchmark}). Here a query increments one adder per histogram and
 * adds to one sum; the buckets are summed over the meters of each label set when Prometheus asks. Labels are in
 * the order Micrometer wrote them (sorted by name, {@code le} last) and bounds as Micrometer wrote them (the
 * endpoint rewrites them Go's way, {@code PrometheusText}).
 */
final class QueryHistograms extends Collector {
    static final String DURATION = "coredns_dns_request_duration_seconds";
    static final String REQUEST_SIZE = "coredns_dns_request_size_bytes";
    static final String RESPONSE_SIZE = "coredns_dns_response_size_bytes";
    private static final List<String> DURATION_LABELS = List.of("server", "type", "zone");
    private static final List<String> SIZE_LABELS = List.of("proto", "server", "zone");

    private final Supplier<Iterable<DnsMetrics.Meters>> meters;

    QueryHistograms(Supplier<Iterable<DnsMetrics.Meters>> meters) {
        this.meters = meters;
    }

    @Override
    public List<MetricFamilySamples> collect() {
        Map<List<String>, long[]> duration = new LinkedHashMap<>();
        Map<List<String>, long[]> requestSize = new LinkedHashMap<>();
        Map<List<String>, long[]> responseSize = new LinkedHashMap<>();
        int durationBuckets = DnsMetrics.DURATION_BOUNDS_NANOS.length + 1;
        int sizeBuckets = DnsMetrics.SIZE_BUCKETS.length + 1;
        for (DnsMetrics.Meters m : meters.get()) {
            // Each array: the buckets (not cumulative, +Inf last), then the sum.
            m.addDuration(duration.computeIfAbsent(List.of(m.server(), m.type(), m.zone()), k -> new long[durationBuckets + 1]));
            List<String> sizeLabels = List.of(m.proto(), m.server(), m.zone());
            m.addRequestSize(requestSize.computeIfAbsent(sizeLabels, k -> new long[sizeBuckets + 1]));
            m.addResponseSize(responseSize.computeIfAbsent(sizeLabels, k -> new long[sizeBuckets + 1]));
        }
        double[] durationBounds = new double[DnsMetrics.DURATION_BOUNDS_NANOS.length];
        for (int i = 0; i < durationBounds.length; i++) {
            durationBounds[i] = DnsMetrics.DURATION_BOUNDS_NANOS[i] / 1e9;
        }
        return List.of(
                family(DURATION, "Histogram of the time (in seconds) each request took per zone", DURATION_LABELS,
                        durationBounds, 1e-9, duration),
                family(REQUEST_SIZE, "Size of the request in bytes per zone and protocol", SIZE_LABELS,
                        DnsMetrics.SIZE_BUCKETS, 1, requestSize),
                family(RESPONSE_SIZE, "Size of the returned response in bytes per zone and protocol", SIZE_LABELS,
                        DnsMetrics.SIZE_BUCKETS, 1, responseSize));
    }

    private static MetricFamilySamples family(String name, String help, List<String> labels, double[] bounds, double sumScale,
                                              Map<List<String>, long[]> series) {
        List<String> bucketLabels = new ArrayList<>(labels);
        bucketLabels.add("le");
        List<MetricFamilySamples.Sample> samples = new ArrayList<>();
        series.forEach((values, counts) -> {
            long cumulative = 0;
            for (int i = 0; i <= bounds.length; i++) {
                cumulative += counts[i];
                List<String> bucketValues = new ArrayList<>(values);
                bucketValues.add(i < bounds.length ? doubleToGoString(bounds[i]) : "+Inf");
                samples.add(new MetricFamilySamples.Sample(name + "_bucket", bucketLabels, bucketValues, cumulative));
            }
            samples.add(new MetricFamilySamples.Sample(name + "_count", labels, values, cumulative));
            samples.add(new MetricFamilySamples.Sample(name + "_sum", labels, values, counts[bounds.length + 1] * sumScale));
        });
        return new MetricFamilySamples(name, Type.HISTOGRAM, help, samples);
    }
}
