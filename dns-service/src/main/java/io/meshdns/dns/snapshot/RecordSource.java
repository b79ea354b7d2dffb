package io.meshdns.dns.snapshot;

import org.xbill.DNS.Name;

import java.util.List;

/**
 * A source of authoritative data for dns-service: zone files, hosts files, the discovery feed,
 * dynamic (RFC 2136) zones. Each source publishes its whole current content (or patches of it); the
 * snapshot store merges every source into one immutable lookup snapshot and swaps it atomically, so a
 * query always sees one consistent version and a reload never drops a query.
 *
 * <p>To feed dns-service from a new place, make an {@code @ApplicationScoped} bean that implements this
 * interface: {@link SnapshotStore} collects every such bean and starts it before the listeners bind. A
 * source with nothing configured starts, publishes nothing (or an empty list) and stays idle.
 */
public interface RecordSource {

    /** A stable id for logs, metrics and the status page, e.g. {@code zone-files} or {@code discovery:http://…}. */
    String id();

    /**
     * Starts the source. It calls {@link Sink#publish} with its full content once that is loaded, and again
     * (or {@link Sink#patch}) after every change. A source that fails to load keeps its last published content.
     * An exception here fails the start (an {@code InvalidConfigException} names the key to fix).
     */
    void start(Sink sink) throws Exception;

    default void stop() {
    }

    /** What this source reads, one line each, for the status page (files, URLs); by default its id. */
    default List<String> inputs() {
        return List.of(id());
    }

    /** Where this source got zone {@code origin} (for explain), e.g. {@code zone-file:/etc/meshdns/a.zone}; by default its id. */
    default String originOf(Name origin) {
        return id();
    }

    /** Where a source delivers its changes; see {@link SnapshotStore}. */
    interface Sink {
        /**
         * Replaces everything the source holds. {@code mesh}, when not null, becomes the snapshot's mesh index in
         * the same swap as the records (null keeps the current one).
         */
        void publish(List<ZoneContent> content, MeshIndex mesh);

        /**
         * Changes only the owners the patches name. {@code content} is a live view of everything the source
         * holds afterwards, read when a zone must be compiled whole (another source changed the same zone).
         * {@code mesh} as in {@link #publish}.
         */
        void patch(List<ZonePatch> patches, SourceContent content, MeshIndex mesh);
    }
}
