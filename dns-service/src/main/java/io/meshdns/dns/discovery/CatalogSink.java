package io.meshdns.dns.discovery;

import io.meshdns.model.WatchEvent;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;

/** Where a feed delivers what it receives. Every event is decoded and applied in arrival order on one thread. */
interface CatalogSink {
    /** Decodes (off the event loop) and applies one event; completes with what the feed must do next. */
    CompletionStage<CatalogFollower.Outcome> offer(Callable<WatchEvent> decode);

    /** The version applied so far, -1 before the first snapshot. */
    long version();

    /** The feed's live connection went up or down (a metric; readiness does not depend on it). */
    void connected(boolean up);

    /** The feed lost its connection and will retry. */
    void reconnecting();
}
