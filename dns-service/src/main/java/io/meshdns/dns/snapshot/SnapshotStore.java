package io.meshdns.dns.snapshot;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Holds the current {@link Snapshot} and rebuilds it whenever a {@link RecordSource} publishes.
 * The query path only ever calls {@link #current()}: one volatile read, no lock. Rebuilds are
 * serialized here, so sources may publish from any thread.
 *
 * <p>To feed dns-service from a new place, implement {@link RecordSource} and call
 * {@link #register(RecordSource)} (typically from a startup observer).
 */
@ApplicationScoped
public class SnapshotStore {
    private static final Logger LOG = Logger.getLogger(SnapshotStore.class);

    private volatile Snapshot current = Snapshot.empty();
    private final Map<String, List<ZoneContent>> contentBySource = new LinkedHashMap<>();
    private final List<RecordSource> sources = new CopyOnWriteArrayList<>();
    private long version;

    @Inject
    MeterRegistry registry;

    void init(@jakarta.enterprise.event.Observes io.quarkus.runtime.StartupEvent ignored) {
        Gauge.builder("meshdns.snapshot.version", this, s -> s.current.version())
                .description("Version of the record snapshot being served; it increases on every reload")
                .register(registry);
    }

    /** The snapshot to answer from. Never null; version 0 means nothing was loaded yet. */
    public Snapshot current() {
        return current;
    }

    /** True once at least one snapshot has been built (see {@link #publishInitial()}). */
    public boolean loaded() {
        return current.version() > 0;
    }

    /**
     * Starts {@code source}; its content joins the snapshot each time it publishes. A source that
     * publishes inside {@code start} (the file sources do) is in the snapshot when this returns.
     */
    public void register(RecordSource source) throws Exception {
        sources.add(source);
        source.start(content -> publish(source.id(), content));
    }

    /** Builds the first snapshot even when no source has published (an empty config still serves). */
    public synchronized void publishInitial() {
        if (version == 0) {
            rebuild("startup");
        }
    }

    /** Replaces everything {@code sourceId} contributes, and swaps in a new snapshot. */
    public synchronized void publish(String sourceId, List<ZoneContent> content) {
        contentBySource.put(sourceId, List.copyOf(content));
        rebuild(sourceId);
    }

    /** Removes a source's content (for sources that go away at run time). */
    public synchronized void withdraw(String sourceId) {
        if (contentBySource.remove(sourceId) != null) {
            rebuild(sourceId + " (withdrawn)");
        }
    }

    private void rebuild(String cause) {
        long started = System.nanoTime();
        List<ZoneContent> all = new ArrayList<>();
        contentBySource.values().forEach(all::addAll);
        Snapshot next = Snapshot.build(++version, all);
        current = next;
        LOG.infof("snapshot v%d: %d zone(s) after update from %s (%d ms)", next.version(), next.zones().size(),
                cause, (System.nanoTime() - started) / 1_000_000);
    }

    @PreDestroy
    void stop() {
        for (RecordSource source : sources) {
            try {
                source.stop();
            } catch (RuntimeException e) {
                LOG.warnf(e, "stopping %s", source.id());
            }
        }
    }
}
