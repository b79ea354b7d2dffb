package io.meshdns.dns.snapshot;

import io.meshdns.dns.base.StartupOrder;
import io.meshdns.dns.metrics.Counters;
import io.quarkus.arc.All;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.jboss.logging.Logger;
import org.xbill.DNS.Name;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;

/**
 * Holds the current {@link Snapshot} and derives the next one whenever a {@link RecordSource} changes.
 * The query path only ever calls {@link #current()}: one volatile read, no lock. Updates are
 * serialized here, so sources may publish from any thread.
 *
 * <p>An update costs what it changes: a source that publishes whole contents recompiles only the zones
 * it had or has (every other zone is shared with the previous snapshot), and a source that sends
 * {@link ZonePatch}es changes only the owners they name, unless another source holds records in the
 * same zone (then that zone is recompiled from every source's content, the safe way).
 *
 * <p>To feed dns-service from a new place, make a bean that implements {@link RecordSource}: every such bean
 * is collected here and started before the listeners bind.
 */
@Singleton // no client proxy: called on every query (a proxy looked the instance up on each call)
public class SnapshotStore {
    private static final Logger LOG = Logger.getLogger(SnapshotStore.class);

    private volatile Snapshot current = Snapshot.empty();
    private volatile Swap lastSwap = new Swap(0, 0, "nothing loaded yet");
    private final Map<String, SourceContent> contentBySource = new LinkedHashMap<>();
    private final List<RecordSource> sources = new CopyOnWriteArrayList<>();
    private long version;
    private LongAdder patched;
    private LongAdder recompiled;

    @Inject
    MeterRegistry registry;

    /** Every record source of the application; started (in id order) before the listeners bind. */
    @Inject
    @All
    List<RecordSource> recordSources;

    /** After the configuration checks, before the node wiring and the listeners (see {@link StartupOrder}). */
    void startSources(@Observes @Priority(StartupOrder.RECORD_SOURCES) StartupEvent ignored) throws Exception {
        Gauge.builder("meshdns.snapshot.version", this, s -> s.current.version())
                .description("Version of the record snapshot being served; it increases on every reload")
                .register(registry);
        List<RecordSource> ordered = new ArrayList<>(recordSources);
        ordered.sort(java.util.Comparator.comparing(RecordSource::id));
        for (RecordSource source : ordered) {
            start(source);
        }
    }

    /** Before any source can publish. */
    @PostConstruct
    void counters() {
        patched = updates("patch");
        recompiled = updates("recompile");
    }

    private LongAdder updates(String kind) {
        return Counters.register(registry, "meshdns.snapshot.updates",
                "Snapshot updates: owners patched in place, or zones recompiled from every source", "kind", kind);
    }

    /** When the snapshot being served was published, and what caused it (for the status page). */
    public record Swap(long version, long epochMillis, String cause) {
    }

    public Swap lastSwap() {
        return lastSwap;
    }

    /**
     * Where zone {@code origin} came from ({@code zone-file:/path}, {@code discovery:…}, …, as the source that holds
     * it says), or null.
     */
    public synchronized String sourceOfZone(Name origin) {
        for (Map.Entry<String, SourceContent> e : contentBySource.entrySet()) {
            if (e.getValue().zone(origin) == null) continue;
            for (RecordSource source : sources) {
                if (source.id().equals(e.getKey())) return source.originOf(origin);
            }
            return e.getKey();
        }
        return null;
    }

    /** The record sources started so far, in start order. */
    public List<RecordSource> sources() {
        return List.copyOf(sources);
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
    private void start(RecordSource source) throws Exception {
        sources.add(source);
        String id = source.id();
        source.start(new RecordSource.Sink() {
            @Override
            public void publish(List<ZoneContent> content, MeshIndex mesh) {
                SnapshotStore.this.publish(id, content, mesh);
            }

            @Override
            public void patch(List<ZonePatch> patches, SourceContent content, MeshIndex mesh) {
                SnapshotStore.this.patch(id, patches, content, mesh);
            }
        });
    }

    /** Builds the first snapshot even when no source has published (an empty config still serves). */
    public synchronized void publishInitial() {
        if (version == 0) {
            swap(current.withZones(++version, Map.of(), null), "startup", 0, System.nanoTime());
        }
    }

    /** Replaces everything {@code sourceId} contributes, and swaps in a new snapshot. */
    public synchronized void publish(String sourceId, List<ZoneContent> content) {
        replace(sourceId, SourceContent.of(content), null);
    }

    /** Like {@link #publish(String, List)}; the new snapshot carries {@code mesh} (null: the current one's). */
    public synchronized void publish(String sourceId, List<ZoneContent> content, MeshIndex mesh) {
        replace(sourceId, SourceContent.of(content), mesh);
    }

    /**
     * Applies a source's patches. They touch only the owners they name when the source is alone in each
     * patched zone (and in each patched overlay name); otherwise the affected zones are recompiled whole
     * from every source's content, {@code content} included.
     */
    public synchronized void patch(String sourceId, List<ZonePatch> patches, SourceContent content) {
        patch(sourceId, patches, content, null);
    }

    /** Like {@link #patch(String, List, SourceContent)}; the new snapshot carries {@code mesh} (null: the current one's). */
    public synchronized void patch(String sourceId, List<ZonePatch> patches, SourceContent content, MeshIndex mesh) {
        long started = System.nanoTime();
        SourceContent previous = contentBySource.put(sourceId, content);
        if (!patchable(sourceId, patches)) {
            Set<Name> origins = new HashSet<>();
            boolean overlay = false;
            for (ZonePatch p : patches) {
                if (p.overlay()) overlay = true;
                else origins.add(p.origin());
            }
            if (previous != null) origins.addAll(previous.origins());
            origins.addAll(content.origins());
            recompile(origins, overlay, sourceId + " (patch, shared zone)", started, mesh);
            return;
        }
        if (patched != null) patched.increment(); // null only where the store runs outside the application (unit tests)
        int owners = 0;
        for (ZonePatch p : patches) owners += p.owners().size();
        swap(current.patch(++version, patches, mesh), sourceId + " (patch)", owners, started);
    }

    /** Removes a source's content (for sources that go away at run time). */
    public synchronized void withdraw(String sourceId) {
        SourceContent previous = contentBySource.remove(sourceId);
        if (previous != null) {
            recompile(previous.origins(), previous.zone(null) != null, sourceId + " (withdrawn)", System.nanoTime(), null);
        }
    }

    private void replace(String sourceId, SourceContent content, MeshIndex mesh) {
        long started = System.nanoTime();
        SourceContent previous = contentBySource.put(sourceId, content);
        Set<Name> origins = new HashSet<>(content.origins());
        boolean overlay = content.zone(null) != null;
        if (previous != null) {
            origins.addAll(previous.origins());
            overlay |= previous.zone(null) != null;
        }
        recompile(origins, overlay, sourceId, started, mesh);
    }

    /** A patch is applied as such only where no other source holds the same zone or overlay name. */
    private boolean patchable(String sourceId, List<ZonePatch> patches) {
        for (ZonePatch p : patches) {
            if (!p.overlay() && current.zone(p.origin()) == null) return false; // a new zone: compile it whole
            for (Map.Entry<String, SourceContent> other : contentBySource.entrySet()) {
                if (other.getKey().equals(sourceId)) continue;
                SourceContent c = other.getValue();
                if (!p.overlay()) {
                    if (c.origins().contains(p.origin())) return false;
                    continue;
                }
                if (c.zone(null) == null) continue;
                Set<Name> owners = c.overlayOwners();
                if (owners == null) return false;
                for (Name owner : p.owners().keySet()) {
                    if (owners.contains(owner)) return false;
                }
            }
        }
        return true;
    }

    /** Recompiles the zones at {@code origins} (and the overlay) from every source; shares every other zone. */
    private void recompile(Set<Name> origins, boolean overlay, String cause, long started, MeshIndex mesh) {
        if (recompiled != null) recompiled.increment();
        Map<Name, ZoneIndex> zones = new HashMap<>();
        int names = 0;
        for (Name origin : origins) {
            List<ZoneContent> parts = new ArrayList<>();
            for (SourceContent c : contentBySource.values()) {
                ZoneContent z = c.zone(origin);
                if (z != null) parts.add(z);
            }
            ZoneIndex zone = parts.isEmpty() ? null : Snapshot.compileZone(origin, parts);
            zones.put(origin, zone);
            if (zone != null) names += zone.size();
        }
        io.meshdns.model.ShardedMap<Name, Node> overlayNodes = null;
        if (overlay) {
            List<ZoneContent> parts = new ArrayList<>();
            for (SourceContent c : contentBySource.values()) {
                ZoneContent z = c.zone(null);
                if (z != null) parts.add(z);
            }
            overlayNodes = Snapshot.compileOverlay(parts);
            names += overlayNodes.size();
        }
        swap(current.withZones(++version, zones, overlayNodes, mesh), cause, names, started);
    }

    private void swap(Snapshot next, String cause, int names, long started) {
        current = next;
        lastSwap = new Swap(next.version(), System.currentTimeMillis(), cause);
        long micros = (System.nanoTime() - started) / 1_000;
        if (micros >= 100_000 || !cause.endsWith("(patch)")) {
            LOG.infof("snapshot v%d: %d zone(s), %d name(s) changed or compiled after update from %s (%d ms)", next.version(),
                    next.zones().size(), names, cause, micros / 1_000);
        } else {
            LOG.debugf("snapshot v%d: %d owner(s) patched from %s (%d us)", next.version(), names, cause, micros);
        }
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
