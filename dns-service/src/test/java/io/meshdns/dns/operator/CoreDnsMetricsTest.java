package io.meshdns.dns.operator;

import io.meshdns.dns.DnsClient;
import io.meshdns.dns.server.DnsServer;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.ExtendedFlags;
import org.xbill.DNS.Message;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The metrics CoreDNS's own Grafana dashboard reads, under CoreDNS's names, labels and buckets, written the way
 * Go's Prometheus client writes them; on the HTTP port's {@code /metrics} and {@code /q/metrics} and on
 * {@code meshdns.dns.metrics.port} (CoreDNS's :9153, here port 0).
 */
@QuarkusTest
class CoreDnsMetricsTest {
    private static final String ZONE = "test.meshdns.";

    @Inject
    DnsServer server;

    @Inject
    MetricsEndpoint endpoint;

    @Test
    void requestAndResponseSizesAndTheDoBitAreCounted() throws Exception {
        String before = scrape("/metrics");
        DnsClient client = new DnsClient(server.boundPort());
        Message query = DnsClient.query("www.test.meshdns.", Type.A, 1);
        query.addRecord(new OPTRecord(1232, 0, 0, ExtendedFlags.DO), Section.ADDITIONAL);
        Message answer = client.send(query, false);
        assertEquals(Rcode.NOERROR, answer.getRcode());
        int requestBytes = query.toWire().length;
        int responseBytes = answer.toWire().length;
        client.send(DnsClient.query("www.test.meshdns.", Type.A, 1), true); // no OPT, over TCP

        String after = scrape("/metrics");
        String udp = "proto=\"udp\"," + serverLabel() + ",zone=\"" + ZONE + "\"";
        assertEquals(1, value(after, "coredns_dns_request_size_bytes_count{" + udp + "}") - value(before, "coredns_dns_request_size_bytes_count{" + udp + "}"),
                () -> after.lines().filter(l -> l.contains("size_bytes_count") || l.contains("requests_total")).reduce("", (a, b) -> a + "\n" + b));
        assertEquals(requestBytes, value(after, "coredns_dns_request_size_bytes_sum{" + udp + "}") - value(before, "coredns_dns_request_size_bytes_sum{" + udp + "}"));
        assertEquals(responseBytes, value(after, "coredns_dns_response_size_bytes_sum{" + udp + "}") - value(before, "coredns_dns_response_size_bytes_sum{" + udp + "}"));
        String tcp = "proto=\"tcp\"," + serverLabel() + ",zone=\"" + ZONE + "\"";
        assertTrue(value(after, "coredns_dns_request_size_bytes_count{" + tcp + "}") >= 1);
        // a query of about 40 bytes falls in CoreDNS's first bucket above zero
        String bucket100 = "coredns_dns_request_size_bytes_bucket{" + udp + ",le=\"100\"}";
        assertEquals(1, value(after, bucket100) - value(before, bucket100));
        for (String le : new String[]{"100", "200", "300", "400", "511", "1023", "2047", "4095", "8291", "16000", "32000", "48000", "64000", "+Inf"}) {
            assertTrue(after.contains("coredns_dns_response_size_bytes_bucket{" + udp + ",le=\"" + le + "\"}"), "bucket " + le);
        }
        String dnssec = "coredns_dns_do_requests_total{" + serverLabel() + ",zone=\"" + ZONE + "\"}";
        assertEquals(1, value(after, dnssec) - value(before, dnssec), "only the query with DO set");
    }

    @Test
    void bucketsArePrintedLikeGoAndBuildInfoAndPanicsAreThere() throws Exception {
        new DnsClient(server.boundPort()).udp("www.test.meshdns.", Type.A);
        String text = scrape("/q/metrics");
        assertTrue(text.contains(",le=\"0.00025\"}"), "CoreDNS's first duration bucket, as Go prints it");
        assertFalse(Pattern.compile("le=\"[^\"]*E[-+]?\\d").matcher(text).find(), "no Java exponent in a bucket bound");
        assertFalse(text.contains("le=\"100.0\""), "no Java '.0' in a bucket bound");
        assertTrue(Pattern.compile("(?m)^coredns_build_info\\{goversion=\"java[^\"]+\",revision=\"[^\"]+\",version=\"[^\"]+\"} 1(\\.0)?$").matcher(text).find(), text);
        assertTrue(Pattern.compile("(?m)^coredns_panics_total(\\{[^}]*})? \\d").matcher(text).find(), "coredns_panics_total");
    }

    @Test
    void theCoreDnsStylePortServesTheSameMetrics() throws Exception {
        int port = endpoint.metricsPort();
        assertTrue(port > 0, "meshdns.dns.metrics.port=0 in the test profile: a port of its own");
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/openmetrics-text"));
        HttpResponse<String> classic = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .header("Accept", "text/plain").build(), HttpResponse.BodyHandlers.ofString());
        assertTrue(classic.headers().firstValue("Content-Type").orElse("").startsWith("text/plain; version=0.0.4"));
        assertTrue(classic.body().contains("le=\"0.00025\","), "Go-style bounds in the classic format too");
        assertTrue(r.body().contains("coredns_dns_requests_total{"), "the DNS request counter");
        assertTrue(r.body().contains("coredns_build_info{"));
    }

    private String serverLabel() {
        return "server=\"dns://127.0.0.1:" + server.boundPort() + "\"";
    }

    private static String scrape(String path) {
        return given().get(path).then().statusCode(200).extract().asString();
    }

    private static double value(String exposition, String series) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(exposition);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }
}
