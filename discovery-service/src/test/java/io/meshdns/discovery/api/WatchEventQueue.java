package io.meshdns.discovery.api;

import io.meshdns.model.WatchEvent;
import io.meshdns.model.WireFormat;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The raw reader of one {@code /v1/watch} stream: each NDJSON line decoded into a {@link WatchEvent} and queued in
 * arrival order, heartbeats included; what the test does with them is its own. Give it to
 * {@code HttpResponse.BodyHandlers.fromLineSubscriber(...)}.
 */
record WatchEventQueue(LinkedBlockingQueue<WatchEvent> events) implements Flow.Subscriber<String> {
    @Override
    public void onSubscribe(Flow.Subscription s) {
        s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(String line) {
        if (!line.isBlank()) events.add(WireFormat.decode(line.getBytes(StandardCharsets.UTF_8), WatchEvent.class));
    }

    @Override
    public void onError(Throwable t) {
    }

    @Override
    public void onComplete() {
    }
}
