package io.meshdns.dns.operator;

import io.meshdns.dns.discovery.DiscoveryRecordSource;
import io.meshdns.dns.forward.UpstreamForwarder;
import io.meshdns.dns.ratelimit.ResponseRateLimiter;
import io.meshdns.dns.ratelimit.RrlSettings;
import io.meshdns.dns.server.DnsServer;
import io.meshdns.dns.snapshot.RecordSource;
import io.meshdns.dns.snapshot.Snapshot;
import io.meshdns.dns.snapshot.SnapshotStore;
import io.meshdns.model.operator.HtmlPage;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.meshdns.kit.StatusRoutes;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * dns-service's status page, {@code GET /status} (and {@code /}) on the HTTP port: plain HTML, no script.
 * It reads what the query path reads: the snapshot being served (version, age, zones), the record sources,
 * the discovery feed, and the forwarding cache, answer memo and upstreams as their meters count them.
 */
@ApplicationScoped
public class StatusPage {
    @Inject
    SnapshotStore store;

    @Inject
    DnsServer server;

    @Inject
    Instance<DiscoveryRecordSource> discovery;

    @Inject
    Instance<UpstreamForwarder> forwarder;

    @Inject
    MeterRegistry registry;

    @Inject
    ResponseRateLimiter rateLimiter;

    @Inject
    io.vertx.core.Vertx vertx;

    /** Rendered at most once a second and off the event loop, whoever asks how often ({@link StatusRoutes}). */
    void routes(@Observes Router router) {
        StatusRoutes.install(router, vertx, "dns", () -> store.current().version(), this::render);
    }

    String render() {
        Snapshot snapshot = store.current();
        SnapshotStore.Swap swap = store.lastSwap();
        HtmlPage page = new HtmlPage("meshdns dns-service");
        page.section("Snapshot").facts("snapshot",
                "version", String.valueOf(snapshot.version()),
                "published", HtmlPage.ago(swap.epochMillis()) + (swap.version() == snapshot.version() ? "" : " (version " + swap.version() + ")"),
                "last change from", swap.cause(),
                "zones", String.valueOf(snapshot.zones().size()),
                "listening", "port " + server.boundPort() + " (udp+tcp)");
        List<List<String>> zones = new ArrayList<>();
        snapshot.zones().stream().sorted(Comparator.comparing(z -> z.origin().toString()))
                .forEach(z -> zones.add(List.of(z.origin().toString(), String.valueOf(z.size()))));
        page.table("zones", List.of("zone", "names"), zones, "no zones loaded");

        RrlSettings rrl = rateLimiter.settings();
        long[] limited = rateLimiter.totals();
        page.facts("rrl", "response-rate limit (UDP)", !rrl.enabled() ? "off"
                        : rrl.responsesPerSecond() + " answers/s per /" + rrl.ipv4PrefixLength() + " (IPv6 /" + rrl.ipv6PrefixLength()
                        + "), slip " + rrl.slip() + (rrl.shedQueriesPerSecond() > 0 ? ", shed above " + rrl.shedQueriesPerSecond() + " queries/s" : ""),
                "limited so far", limited[0] + " slipped, " + limited[1] + " dropped, " + limited[2] + " shed");

        page.section("Record sources");
        List<List<String>> sources = new ArrayList<>();
        for (RecordSource s : store.sources()) {
            for (String input : s.inputs()) {
                sources.add(List.of(input, s.getClass().getSimpleName().replaceAll("_.*", "")));
            }
        }
        page.table("sources", List.of("source", "kind"), sources, "no sources registered");

        page.section("Discovery");
        if (discovery.isResolvable() && discovery.get().configured()) {
            DiscoveryRecordSource d = discovery.get();
            page.facts("discovery", "feed", d.id(), "connection", d.isConnected() ? "connected" : "disconnected",
                    "catalog version applied", d.version() < 0 ? "none yet" : String.valueOf(d.version()),
                    "reconnects", format(counter("meshdns.discovery.client.reconnects")));
        } else {
            page.paragraph("No discovery feed configured (meshdns.dns.discovery-url).");
        }

        page.section("Cache and answer memo");
        List<String> cache = new ArrayList<>();
        if (forwarder.isResolvable() && forwarder.get().cache() != null) {
            var c = forwarder.get().cache();
            cache.addAll(List.of("forwarding cache entries", c.successEntries() + " answers, " + c.denialEntries() + " denials",
                    "cache hits / misses", (c.successHits() + c.denialHits()) + " / " + c.misses(),
                    "served stale", String.valueOf(c.servedStale())));
        } else {
            cache.addAll(List.of("forwarding cache", "off"));
        }
        cache.addAll(List.of("answer memo entries", format(gauge("meshdns.dns.answer.memo.entries")),
                "answer memo evictions", format(counter("meshdns.dns.answer.memo.evictions"))));
        page.facts("cache", cache.toArray(String[]::new));

        page.section("Upstreams");
        page.table("upstreams", List.of("upstream", "queries", "responses by rcode", "failed health checks", "health"), upstreams(),
                "no upstreams (nothing is forwarded)");
        return page.render();
    }

    /** One row per upstream ({@code to} label of the forward meters). */
    private List<List<String>> upstreams() {
        Map<String, double[]> byUpstream = new TreeMap<>();
        Map<String, Map<String, Double>> rcodes = new TreeMap<>();
        for (Meter m : registry.getMeters()) {
            String name = m.getId().getName();
            String to = m.getId().getTag("to");
            if (to == null) continue;
            double value = value(m);
            double[] row = byUpstream.computeIfAbsent(to, k -> new double[2]);
            switch (name) {
                case "coredns.forward.requests" -> row[0] += value;
                case "coredns.forward.healthcheck.failures" -> row[1] += value;
                case "coredns.forward.responses" -> rcodes.computeIfAbsent(to, k -> new TreeMap<>())
                        .merge(m.getId().getTag("rcode"), value, Double::sum);
                default -> {
                }
            }
        }
        List<List<String>> rows = new ArrayList<>();
        byUpstream.forEach((to, row) -> {
            Map<String, Double> r = rcodes.getOrDefault(to, Map.of());
            StringBuilder rc = new StringBuilder();
            r.forEach((code, n) -> rc.append(rc.length() == 0 ? "" : ", ").append(code).append(' ').append(format(n)));
            boolean answering = r.values().stream().anyMatch(n -> n > 0);
            String health = row[1] > 0 && !answering ? "down" : row[1] > 0 ? "failed health checks" : "ok";
            rows.add(List.of(to, format(row[0]), rc.toString(), format(row[1]), health));
        });
        return rows;
    }

    private double gauge(String name) {
        return registry.find(name).meters().stream().mapToDouble(StatusPage::value).sum();
    }

    private double counter(String name) {
        return registry.find(name).meters().stream().mapToDouble(StatusPage::value).sum();
    }

    private static double value(Meter m) {
        double total = 0;
        for (var measurement : m.measure()) {
            String stat = measurement.getStatistic().name();
            if (stat.equals("COUNT") || stat.equals("VALUE") || stat.equals("TOTAL")) {
                total += measurement.getValue();
                break;
            }
        }
        return Double.isNaN(total) ? 0 : total;
    }

    private static String format(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.format(java.util.Locale.ROOT, "%.2f", v);
    }
}
