package io.meshdns.dns.metrics;

import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Type;

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

    @Test
    void durationBucketsAreCoreDnsBoundsWithTheUpperBoundInclusive() {
        assertEquals(0, DnsMetrics.durationBucket(0));
        assertEquals(0, DnsMetrics.durationBucket(250_000));
        assertEquals(1, DnsMetrics.durationBucket(250_001));
        assertEquals(1, DnsMetrics.durationBucket(500_000));
        assertEquals(2, DnsMetrics.durationBucket(500_001));
        assertEquals(2, DnsMetrics.durationBucket(1_000_000));
        assertEquals(15, DnsMetrics.durationBucket(250_000L << 15));
        assertEquals(16, DnsMetrics.durationBucket((250_000L << 15) + 1), "+Inf");
        assertEquals(16, DnsMetrics.durationBucket(Long.MAX_VALUE), "+Inf");
        for (int i = 0; i < DnsMetrics.DURATION_BOUNDS_NANOS.length; i++) {
            long bound = DnsMetrics.DURATION_BOUNDS_NANOS[i];
            assertEquals(i, DnsMetrics.durationBucket(bound), "at bound " + bound);
            assertEquals(i + 1, DnsMetrics.durationBucket(bound + 1), "just above bound " + bound);
        }
    }

    @Test
    void sizeBucketsAreCoreDnsBoundsWithTheUpperBoundInclusive() {
        assertEquals(0, DnsMetrics.sizeBucket(12));
        assertEquals(0, DnsMetrics.sizeBucket(100));
        assertEquals(1, DnsMetrics.sizeBucket(101));
        assertEquals(4, DnsMetrics.sizeBucket(511));
        assertEquals(5, DnsMetrics.sizeBucket(512));
        assertEquals(13, DnsMetrics.sizeBucket(65_535), "+Inf");
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
        assertSeries(text, "coredns_dns_request_duration_seconds_bucket{" + udpA + ",le=\"2.5E-4\"}", 1);
        assertSeries(text, "coredns_dns_request_duration_seconds_bucket{" + udpA + ",le=\"5.0E-4\"}", 2);
        assertSeries(text, "coredns_dns_request_duration_seconds_bucket{" + udpA + ",le=\"0.001\"}", 2);
        assertSeries(text, "coredns_dns_request_duration_seconds_bucket{" + udpA + ",le=\"0.002\"}", 3);
        assertSeries(text, "coredns_dns_request_duration_seconds_bucket{" + udpA + ",le=\"+Inf\"}", 3);
        assertSeries(text, "coredns_dns_request_duration_seconds_count{" + udpA + "}", 3);
        assertSeries(text, "coredns_dns_request_duration_seconds_sum{" + udpA + "}", 0.0024);

        String udpSize = "proto=\"udp\",server=\"" + SERVER + "\",zone=\"z.\"";
        assertSeries(text, "coredns_dns_request_size_bytes_bucket{" + udpSize + ",le=\"100.0\"}", 2);
        assertSeries(text, "coredns_dns_request_size_bytes_bucket{" + udpSize + ",le=\"200.0\"}", 3);
        assertSeries(text, "coredns_dns_request_size_bytes_sum{" + udpSize + "}", 230);
        assertSeries(text, "coredns_dns_response_size_bytes_bucket{" + udpSize + ",le=\"200.0\"}", 2);
        assertSeries(text, "coredns_dns_response_size_bytes_bucket{" + udpSize + ",le=\"511.0\"}", 2);
        assertSeries(text, "coredns_dns_response_size_bytes_bucket{" + udpSize + ",le=\"1023.0\"}", 3);
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
