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

    default void stop() {
    }
}
