package io.meshdns.model.operator;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class PrometheusTextTest {
    /** Java's Double.toString on the left, Go's strconv.FormatFloat(f, 'g', -1, 64) on the right. */
    @ParameterizedTest
    @CsvSource({"2.5E-4, 0.00025", "5.0E-4, 0.0005", "0.001, 0.001", "8.192, 8.192", "0.0, 0", "100.0, 100", "511.0, 511",
            "16000.0, 16000", "64000.0, 64000", "1000000.0, 1e+06", "1.5E-5, 1.5e-05", "+Inf, +Inf", "0.5, 0.5", "-2.0, -2"})
    void boundsAreWrittenLikeGo(String java, String go) {
        assertEquals(go, PrometheusText.goFloat(java));
    }

    @Test
    void onlyBucketAndQuantileLabelsAreRewritten() {
        String in = """
                # TYPE coredns_dns_request_duration_seconds histogram
                coredns_dns_request_duration_seconds_bucket{server="dns://127.0.0.1:53",type="A",zone=".",le="2.5E-4"} 3.0
                coredns_dns_request_duration_seconds_bucket{server="dns://127.0.0.1:53",type="A",zone=".",le="+Inf"} 4.0
                x{handle="1.0E-4",quantile="0.5"} 1.0E-4
                """;
        String out = """
                # TYPE coredns_dns_request_duration_seconds histogram
                coredns_dns_request_duration_seconds_bucket{server="dns://127.0.0.1:53",type="A",zone=".",le="0.00025"} 3.0
                coredns_dns_request_duration_seconds_bucket{server="dns://127.0.0.1:53",type="A",zone=".",le="+Inf"} 4.0
                x{handle="1.0E-4",quantile="0.5"} 1.0E-4
                """;
        assertEquals(out, PrometheusText.goStyle(in));
    }
}
