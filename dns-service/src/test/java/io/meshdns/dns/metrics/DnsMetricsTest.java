package io.meshdns.dns.metrics;

import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Type;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The per-query meters as Prometheus reads them: adders on the query path, summed per label set at scrape time
 * into CoreDNS's counters and histograms (buckets cumulative, bounds CoreDNS's, sums exact).
 */
class DnsMetricsTest {
    private static final String SERVER = "dns://127.0.0.1:53";
    /** What Prometheus asks for (the classic text format ends each label set with a comma). */
    private static final String OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    @ParameterizedTest(name = "{0} ns in bucket {1}")
    @CsvSource({
            "0, 0", "250000, 0", "250001, 1", "500000, 1", "500001, 2", "1000000, 2",
            // 8192000000 ns = 250 µs << 15, the highest bound: above it, bucket 16 is +Inf
            "8192000000, 15", "8192000001, 16", "9223372036854775807, 16",
    })
    void durationBucketsAreCoreDnsBoundsWithTheUpperBoundInclusive(long nanos, int bucket) {
        assertEquals(bucket, DnsMetrics.durationBucket(nanos));
    }

    @Test
    void everyDurationBoundIsTheTopOfItsBucket() {
        for (int i = 0; i < DnsMetrics.DURATION_BOUNDS_NANOS.length; i++) {
            long bound = DnsMetrics.DURATION_BOUNDS_NANOS[i];
            assertEquals(i, DnsMetrics.durationBucket(bound), "at bound " + bound);
            assertEquals(i + 1, DnsMetrics.durationBucket(bound + 1), "just above bound " + bound);
        }
    }

    @ParameterizedTest(name = "{0} bytes in bucket {1}")
    @CsvSource({"12, 0", "100, 0", "101, 1", "511, 4", "512, 5", "65535, 13"}) // 13: +Inf
    void sizeBucketsAreCoreDnsBoundsWithTheUpperBoundInclusive(int bytes, int bucket) {
        assertEquals(bucket, DnsMetrics.sizeBucket(bytes));
    }

    @Test
    void queriesAreSummedPerLabelSetAtScrapeTime() {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        DnsMetrics metrics = new DnsMetrics(prometheus);
        metrics.setServer(SERVER);
        DnsMetrics.Meters noerror = metrics.meters("z.", "udp", false, Type.A, Rcode.NOERROR);
        noerror.record(100_000, 40, 120, false);
        noerror.record(300_000, 40, 120, true);
        metrics.request("z.", "udp", true, Type.A, Rcode.NXDOMAIN, 2_000_000, 150, 600, false);
        metrics.request("z.", "tcp", false, Type.AAAA, Rcode.NOERROR, 100, 45, 90, false);

        String text = prometheus.scrape(OPENMETRICS);
        String udpA = "server=\"" + SERVER + "\",type=\"A\",zone=\"z.\"";
        assertBuckets(text, "coredns_dns_request_duration_seconds", udpA,
                Map.of("2.5E-4", 1, "5.0E-4", 2, "0.001", 2, "0.002", 3, "+Inf", 3));
        assertSeries(text, "coredns_dns_request_duration_seconds_count{" + udpA + "}", 3);
        assertSeries(text, "coredns_dns_request_duration_seconds_sum{" + udpA + "}", 0.0024);

        String udpSize = "proto=\"udp\",server=\"" + SERVER + "\",zone=\"z.\"";
        assertBuckets(text, "coredns_dns_request_size_bytes", udpSize, Map.of("100.0", 2, "200.0", 3));
        assertSeries(text, "coredns_dns_request_size_bytes_sum{" + udpSize + "}", 230);
        assertBuckets(text, "coredns_dns_response_size_bytes", udpSize, Map.of("200.0", 2, "511.0", 2, "1023.0", 3));
        assertSeries(text, "coredns_dns_response_size_bytes_sum{" + udpSize + "}", 840);
        assertSeries(text, "coredns_dns_request_size_bytes_count{proto=\"tcp\",server=\"" + SERVER + "\",zone=\"z.\"}", 1);

        // Counters: requests by family and type, responses by rcode, summed over the meters of each.
        assertSeries(text, "coredns_dns_requests_total{family=\"1\",proto=\"udp\",server=\"" + SERVER + "\",type=\"A\",zone=\"z.\"}", 2);
        assertSeries(text, "coredns_dns_requests_total{family=\"2\",proto=\"udp\",server=\"" + SERVER + "\",type=\"A\",zone=\"z.\"}", 1);
        assertSeries(text, "coredns_dns_responses_total{rcode=\"NOERROR\",server=\"" + SERVER + "\",zone=\"z.\"}", 3);
        assertSeries(text, "coredns_dns_responses_total{rcode=\"NXDOMAIN\",server=\"" + SERVER + "\",zone=\"z.\"}", 1);
        assertSeries(text, "coredns_dns_do_requests_total{server=\"" + SERVER + "\",zone=\"z.\"}", 1);
    }

    @Test
    void histogramsReachThePrometheusRegistryInsideAComposite() {
        CompositeMeterRegistry composite = new CompositeMeterRegistry();
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        composite.add(prometheus);
        DnsMetrics metrics = new DnsMetrics(composite);
        metrics.request("z.", "udp", false, Type.A, Rcode.NOERROR, 1000, 40, 100, false);
        assertSeries(prometheus.scrape(OPENMETRICS), "coredns_dns_request_size_bytes_count{proto=\"udp\",server=\"dns://:0\",zone=\"z.\"}", 1);
        metrics.close();
        assertFalse(prometheus.scrape(OPENMETRICS).contains("coredns_dns_request_size_bytes"), "unregistered with the bean");
    }

    /** A histogram's cumulative counts, by the upper bound ({@code le}) of each bucket named. */
    private static void assertBuckets(String exposition, String histogram, String labels, Map<String, Integer> countByBound) {
        countByBound.forEach((bound, count) ->
                assertSeries(exposition, histogram + "_bucket{" + labels + ",le=\"" + bound + "\"}", count));
    }

    private static void assertSeries(String exposition, String series, double expected) {
        String name = series.substring(0, series.indexOf('{'));
        assertEquals(expected, value(exposition, series), 1e-12, () -> series + " in:\n" + exposition.lines()
                .filter(l -> l.startsWith(name)).reduce("", (a, b) -> a + b + "\n"));
    }

    private static double value(String exposition, String series) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(exposition);
        return m.find() ? Double.parseDouble(m.group(1)) : -1;
    }
}
