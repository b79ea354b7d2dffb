package io.meshdns.discovery.api;

import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** The open {@code /v1/watch} streams, for the status page: who follows the catalog and how far it got. */
public final class WatchClients {
    /** One open stream as the status page shows it. */
    public interface Client {
        String remote();

        String userAgent();

        long connectedEpochMillis();

        /** The last catalog version written to this stream; -1 before the first. */
        long lastSentVersion();

        /** True while it reads too slowly and skips deltas (it gets a fresh snapshot when it drains). */
        boolean lagging();
    }

    private final Set<Client> open = ConcurrentHashMap.newKeySet();

    void opened(Client c) {
        open.add(c);
    }

    void closed(Client c) {
        open.remove(c);
    }

    public List<Client> open() {
        return open.stream().sorted(Comparator.comparing(Client::remote)).toList();
    }
}
