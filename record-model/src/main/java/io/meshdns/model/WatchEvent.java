package io.meshdns.model;

/**
 * One line of the {@code /v1/watch} NDJSON stream (and one event-bus message): exactly one of
 * {@code snapshot} or {@code delta} is set, or neither for a heartbeat that only carries the
 * server's current version.
 */
public record WatchEvent(String type, long version, CatalogSnapshot snapshot, CatalogDelta delta) {
    public static final String SNAPSHOT = "snapshot";
    public static final String DELTA = "delta";
    public static final String HEARTBEAT = "heartbeat";

    public static WatchEvent of(CatalogSnapshot snapshot) {
        return new WatchEvent(SNAPSHOT, snapshot.version(), snapshot, null);
    }

    public static WatchEvent of(CatalogDelta delta) {
        return new WatchEvent(DELTA, delta.toVersion(), null, delta);
    }

    public static WatchEvent heartbeat(long version) {
        return new WatchEvent(HEARTBEAT, version, null, null);
    }
}
