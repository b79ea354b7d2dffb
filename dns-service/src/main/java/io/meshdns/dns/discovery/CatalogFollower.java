package io.meshdns.dns.discovery;

import io.meshdns.model.Catalog;
import io.meshdns.model.CatalogDelta;
import io.meshdns.model.WatchEvent;

/**
 * Follows discovery's versioned stream: pure state, one catalog, no I/O. Snapshots replace the catalog;
 * a delta applies only to the version it names, atomically (a failed apply changes nothing); anything
 * else asks the caller for a full snapshot.
 */
public final class CatalogFollower {
    public enum Outcome {
        /** The catalog changed: recompile and publish. */
        CHANGED,
        /** Nothing to do (heartbeat, duplicate, unknown line type). */
        UNCHANGED,
        /** The stream and our version disagree: fetch a full snapshot. */
        NEEDS_SNAPSHOT
    }

    private volatile Catalog catalog; // written by the catalog thread only; read by metrics and feeds

    /** The current catalog, or null before the first snapshot. */
    public Catalog catalog() {
        return catalog;
    }

    public long version() {
        return catalog == null ? -1 : catalog.version();
    }

    public Outcome replace(Catalog next) {
        catalog = next;
        return Outcome.CHANGED;
    }

    public Outcome accept(WatchEvent event) {
        if (event == null || event.type() == null) return Outcome.UNCHANGED;
        switch (event.type()) {
            case WatchEvent.SNAPSHOT:
                if (event.snapshot() == null) return Outcome.NEEDS_SNAPSHOT;
                return replace(Catalog.of(event.snapshot()));
            case WatchEvent.DELTA:
                return applyDelta(event.delta());
            default:
                return Outcome.UNCHANGED; // heartbeat, or a line type a newer discovery added
        }
    }

    private Outcome applyDelta(CatalogDelta delta) {
        if (delta == null || catalog == null) return Outcome.NEEDS_SNAPSHOT;
        if (delta.fromVersion() != catalog.version()) {
            // An already-applied delta (a replay after reconnect) is harmless; a gap is not.
            return delta.toVersion() <= catalog.version() && delta.toVersion() >= 0 && delta.fromVersion() < catalog.version()
                    ? Outcome.UNCHANGED : Outcome.NEEDS_SNAPSHOT;
        }
        catalog = catalog.apply(delta);
        return Outcome.CHANGED;
    }
}
