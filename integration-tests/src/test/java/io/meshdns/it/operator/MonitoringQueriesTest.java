package io.meshdns.it.operator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.meshdns.testsupport.QuarkusJarProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.Lookup;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every query of the shipped Grafana dashboard and every alert expression names a metric the running services
 * really export (scraped from discovery-service, dns-service and exposure-service started as packaged jars), and
 * dns-service exports every metric CoreDNS's own dashboard reads.
 */
class MonitoringQueriesTest {
    private static final Pattern METRIC = Pattern.compile("\\b((?:meshdns|coredns)_[a-z0-9_]+)");
    /** What CoreDNS's Grafana dashboard queries (its request, response, cache, forward and health panels). */
    private static final List<String> COREDNS_DASHBOARD = List.of("coredns_dns_requests_total", "coredns_dns_responses_total",
            "coredns_dns_request_duration_seconds_bucket", "coredns_dns_request_size_bytes_bucket",
            "coredns_dns_response_size_bytes_bucket", "coredns_dns_do_requests_total", "coredns_cache_hits_total",
            "coredns_cache_misses_total", "coredns_cache_requests_total", "coredns_cache_entries", "coredns_cache_evictions_total",
            "coredns_forward_requests_total", "coredns_forward_responses_total", "coredns_forward_request_duration_seconds_bucket",
            "coredns_panics_total", "coredns_build_info");

    @TempDir
    static Path state;
    static RunningServices services;
    static Set<String> exported = new TreeSet<>();
    static String dnsMetrics;

    @BeforeAll
    static void scrapeTheRunningServices() throws Exception {
        services = new RunningServices(state);
        // traffic, so that every per-query series exists: a mesh name, a name of the example zone, a forwarded one
        SimpleResolver resolver = services.dnsResolver();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(300)).until(() -> {
            Lookup l = new Lookup("reviews.shop.svc.cluster.local.", Type.A);
            l.setResolver(resolver);
            l.setCache(null);
            l.run();
            return l.getResult() == Lookup.SUCCESSFUL;
        });
        for (String name : List.of("registry.mesh.example.", "www.example.invalid.")) {
            Lookup l = new Lookup(name, Type.A);
            l.setResolver(resolver);
            l.setCache(null);
            l.run();
        }
        // exposure publishes its Service: changes counted, a pass completed
        try {
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).until(() ->
                    RunningServices.get("http://127.0.0.1:" + services.exposureHttp + "/q/metrics").contains("meshdns_exposure_changes_total{"));
        } catch (Throwable e) {
            throw new AssertionError(services.outputs(), e);
        }
        dnsMetrics = RunningServices.get("http://127.0.0.1:" + services.dnsHttp + "/metrics");
        for (String exposition : List.of(dnsMetrics,
                RunningServices.get("http://127.0.0.1:" + services.discoveryHttp + "/q/metrics"),
                RunningServices.get("http://127.0.0.1:" + services.exposureHttp + "/q/metrics"))) {
            for (String line : exposition.split("\n")) {
                if (line.isBlank() || line.startsWith("#")) continue;
                int end = 0;
                while (end < line.length() && line.charAt(end) != '{' && line.charAt(end) != ' ') end++;
                exported.add(line.substring(0, end));
            }
        }
    }

    @AfterAll
    static void stop() {
        if (services != null) services.close();
    }

    @Test
    void everyDashboardQueryNamesAnExportedMetric() throws Exception {
        JsonNode dashboard = new ObjectMapper().readTree(monitoring("meshdns-dashboard.json").toFile());
        List<String> expressions = new ArrayList<>();
        collect(dashboard, expressions);
        assertTrue(expressions.size() >= 20, "the dashboard's queries: " + expressions);
        assertAllExported("dashboard", expressions);
        Set<String> named = names(expressions);
        for (String required : List.of("meshdns_discovery_version", "meshdns_discovery_client_version", "meshdns_discovery_stale_clusters",
                "meshdns_exposure_last_sync_timestamp_seconds", "meshdns_exposure_owner_mismatch_total")) {
            assertTrue(named.contains(required), "the dashboard shows " + required);
        }
    }

    @Test
    void everyAlertNamesAnExportedMetric() throws Exception {
        List<String> expressions = new ArrayList<>();
        for (String line : Files.readAllLines(monitoring("prometheusrule.yaml"))) {
            String t = line.strip();
            if (t.startsWith("expr:")) expressions.add(t.substring(5).strip());
        }
        assertTrue(expressions.size() >= 8, "alert expressions: " + expressions);
        assertAllExported("alert", expressions);
    }

    @Test
    void dnsServiceExportsWhatCoreDnsDashboardReads() {
        for (String name : COREDNS_DASHBOARD) {
            assertTrue(exported.contains(name), name + " is not exported; dns-service exports " + exported);
        }
        // CoreDNS's labels, and its bucket bounds as Go writes them
        assertTrue(Pattern.compile("coredns_cache_requests_total\\{server=\"dns://127\\.0\\.0\\.1:\\d+\",zones=\"\\.\"}").matcher(dnsMetrics).find(), dnsMetrics);
        assertTrue(dnsMetrics.contains("le=\"0.00025\""), "Go-style bucket bound");
        assertFalse(Pattern.compile("le=\"[0-9.]+E-?\\d+\"").matcher(dnsMetrics).find(), "no Java exponent in a bucket bound");
    }

    private static void assertAllExported(String what, List<String> expressions) {
        Set<String> missing = new TreeSet<>();
        for (String name : names(expressions)) {
            if (!exported.contains(name)) missing.add(name);
        }
        assertEquals(Set.of(), missing, what + " queries name metrics nobody exports; exported: " + exported);
    }

    private static Set<String> names(List<String> expressions) {
        Set<String> names = new TreeSet<>();
        for (String e : expressions) {
            Matcher m = METRIC.matcher(e);
            while (m.find()) names.add(m.group(1));
        }
        return names;
    }

    /** Every "expr" and templating "query" string in the dashboard. */
    private static void collect(JsonNode node, List<String> out) {
        if (node.isObject()) {
            node.fields().forEachRemaining(f -> {
                if ((f.getKey().equals("expr") || f.getKey().equals("query")) && f.getValue().isTextual()) out.add(f.getValue().asText());
                else collect(f.getValue(), out);
            });
        } else if (node.isArray()) {
            node.forEach(n -> collect(n, out));
        }
    }

    private static Path monitoring(String file) {
        return QuarkusJarProcess.repositoryRoot().resolve("k8s/monitoring").resolve(file);
    }
}
