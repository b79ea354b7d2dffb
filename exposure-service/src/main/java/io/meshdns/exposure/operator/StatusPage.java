package io.meshdns.exposure.operator;

import io.meshdns.exposure.sync.ExposureController;
import io.meshdns.exposure.sync.PassReport;
import io.meshdns.model.operator.HtmlPage;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.meshdns.kit.StatusRoutes;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.ConfigProvider;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * exposure-service's status page, {@code GET /status} (and {@code /}) on the HTTP port: plain HTML, no script.
 * What it shows is what the publisher exports: its settings (the {@code meshdns.exposure.*} contract keys),
 * whether this replica leads and its sources are synced, the last completed pass, failed passes, the records
 * it owns by type, the changes it applied and the names it could not publish because another owner holds them;
 * and the last pass's own report ({@link PassReport}, published by the pass): its plan line by line and the
 * conflicts and invalid objects with their reasons.
 */
@ApplicationScoped
public class StatusPage {
    private static final List<String> KEYS = List.of("meshdns.exposure.owner-id", "meshdns.exposure.policy", "meshdns.exposure.provider",
            "meshdns.exposure.dry-run", "meshdns.exposure.interval", "meshdns.exposure.default-domain", "meshdns.exposure.domain-filters",
            "meshdns.exposure.sources", "meshdns.exposure.rfc2136.host", "meshdns.exposure.rfc2136.zones", "meshdns.exposure.builtin.targets");

    @Inject
    Instance<ExposureController> controller;

    @Inject
    MeterRegistry registry;

    @Inject
    io.vertx.core.Vertx vertx;

    /** Rendered at most once a second and off the event loop, whoever asks how often ({@link StatusRoutes}). */
    void routes(@Observes Router router) {
        StatusRoutes.install(router, vertx, "exposure", StatusPage::noVersion, this::render);
    }

    /** A pass changes the page at most every interval: the rendering's one-second age bounds it well enough. */
    private static long noVersion() {
        return 0;
    }

    String render() {
        HtmlPage page = new HtmlPage("meshdns exposure-service");
        List<String> settings = new ArrayList<>();
        for (String key : KEYS) {
            String value = ConfigProvider.getConfig().getOptionalValue(key, String.class).orElse("");
            if (!value.isEmpty()) {
                settings.add(key);
                settings.add(value);
            }
        }
        page.section("Settings").facts("settings", settings.toArray(String[]::new));

        long lastPass = (long) sum("meshdns.exposure.last.sync.timestamp.seconds");
        List<String> state = new ArrayList<>();
        if (controller.isResolvable()) {
            ExposureController c = controller.get();
            state.addAll(List.of("leader", c.isLeader() ? "yes" : "no (another replica publishes)",
                    "sources synced", c.sourcesReady() ? "yes" : "no"));
        }
        state.addAll(List.of("last completed pass", lastPass <= 0 ? "none yet" : HtmlPage.ago(lastPass * 1000),
                "failed passes", format(sum("meshdns.exposure.errors")),
                "conflicts (not published: another owner holds the name)", format(sum("meshdns.exposure.owner.mismatch"))));
        page.section("Passes").facts("passes", state.toArray(String[]::new));

        if (controller.isResolvable()) lastPass(page, controller.get().lastPass());

        List<List<String>> owned = new ArrayList<>();
        byTag("meshdns.exposure.records", "type").forEach((type, n) -> owned.add(List.of(type, format(n))));
        page.section("Owned records").table("owned", List.of("type", "records"), owned, "no records owned yet");

        List<List<String>> changes = new ArrayList<>();
        byTag("meshdns.exposure.changes", "action").forEach((action, n) -> changes.add(List.of(action, format(n))));
        page.section("Changes applied").table("changes", List.of("action", "RRsets"), changes, "no changes applied yet");
        return page.render();
    }

    /** The pass's own report: its plan line by line and the names it could not publish, with why. */
    private static void lastPass(HtmlPage page, PassReport r) {
        page.section("Last pass").facts("last-pass",
                "finished", r.finishedAt() == null ? "no pass yet" : HtmlPage.ago(r.finishedAt().toEpochMilli()),
                "took", r.took().toMillis() + " ms",
                "result", r.result() + (r.dryRun() ? ", DRY-RUN: nothing written" : ""),
                "owned records", String.valueOf(r.ownedRecords()));
        page.section("Last plan").table("plan", List.of("change"), r.plan().stream().map(List::of).toList(),
                "no changes in the last pass");
        if (r.plan().isEmpty() && r.lastChangedAt() != null) {
            page.paragraph("Last pass that changed something: " + HtmlPage.ago(r.lastChangedAt().toEpochMilli()));
            page.table("last-changes", List.of("change"), r.lastChanges().stream().map(List::of).toList(), "");
        }
        List<List<String>> conflicts = new ArrayList<>();
        r.conflicts().forEach(c -> conflicts.add(List.of("plan", c)));
        r.problems().forEach(p -> conflicts.add(List.of("object", p)));
        page.section("Conflicts and invalid objects").table("conflicts", List.of("from", "what and why"), conflicts,
                "none in the last pass");
    }

    private double sum(String name) {
        double total = 0;
        for (Meter m : registry.find(name).meters()) total += value(m);
        return total;
    }

    private Map<String, Double> byTag(String name, String tag) {
        Map<String, Double> out = new TreeMap<>();
        for (Meter m : registry.find(name).meters()) {
            out.merge(String.valueOf(m.getId().getTag(tag)), value(m), Double::sum);
        }
        return out;
    }

    private static double value(Meter m) {
        for (var measurement : m.measure()) {
            double v = measurement.getValue();
            return Double.isNaN(v) ? 0 : v;
        }
        return 0;
    }

    private static String format(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.format(java.util.Locale.ROOT, "%.2f", v);
    }
}
