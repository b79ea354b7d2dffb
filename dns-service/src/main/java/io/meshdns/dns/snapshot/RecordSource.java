package io.meshdns.dns.snapshot;

import java.util.List;
import java.util.function.Consumer;

/**
 * A source of authoritative data for dns-service: zone files, hosts files, the discovery feed,
 * dynamic (RFC 2136) zones. Each source publishes its whole current content; the snapshot store
 * merges every source into one immutable lookup snapshot and swaps it atomically, so a query
 * always sees one consistent version and a reload never drops a query.
 */
public interface RecordSource {

    /** A stable id for logs and metrics, e.g. {@code zone-file:/etc/meshdns/example.zone}. */
    String id();

    /**
     * Starts the source. It calls {@code publish} with its full content once that is loaded, and again
     * after every change. A source that fails to load keeps its last published content.
     */
    void start(Consumer<List<ZoneContent>> publish) throws Exception;

    /**
     * Starts the source with a sink that also takes {@link ZonePatch}es. Sources that know which names
     * each change touches (the discovery feed) override this; the others publish whole contents.
     */
    default void start(Sink sink) throws Exception {
        start(sink::publish);
    }

    default void stop() {
    }

    /** Where a source delivers its changes; see {@link SnapshotStore}. */
    interface Sink {
        /** Replaces everything the source holds. */
        void publish(List<ZoneContent> content);

        /**
         * Changes only the owners the patches name. {@code content} is a live view of everything the source
         * holds afterwards, read when a zone must be compiled whole (another source changed the same zone).
         */
        void patch(List<ZonePatch> patches, SourceContent content);

        /**
         * Like {@link #publish(List)}, and the snapshot that holds {@code content} carries {@code mesh} as its
         * mesh index: records and index become visible in the same swap.
         */
        default void publish(List<ZoneContent> content, io.meshdns.dns.kubernetes.MeshIndex mesh) {
            publish(content);
        }

        /** Like {@link #patch(List, SourceContent)}, publishing {@code mesh} with the patched records. */
        default void patch(List<ZonePatch> patches, SourceContent content, io.meshdns.dns.kubernetes.MeshIndex mesh) {
            patch(patches, content);
        }
    }
}
