package io.meshdns.exposure.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.plan.Changes;
import io.meshdns.exposure.provider.webhook.WebhookProvider;
import io.meshdns.testsupport.webhook.StrictWebhookProvider;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** meshdns.exposure.provider-cache-time, against the strict webhook provider: reads reused, dropped on a write. */
class CachedProviderTest {

    static long reads(StrictWebhookProvider server) {
        return server.requests().stream().filter(r -> r.startsWith("GET /records")).count();
    }

    @Test
    void aReadIsReusedForTheCacheTimeAndDroppedByAWrite() throws Exception {
        try (var server = new StrictWebhookProvider(List.of("example.org"))) {
            server.seed("a.example.org", "A", 0, "192.0.2.1");
            var clock = new AtomicLong();
            Provider p = CachedProvider.wrap(new WebhookProvider(URI.create(server.url()), Duration.ofSeconds(5), 1),
                    Duration.ofSeconds(30), clock::get);
            assertEquals(1, p.records().size());
            clock.addAndGet(Duration.ofSeconds(29).toNanos());
            assertEquals(1, p.records().size());
            assertEquals(1, reads(server), "the second read came from the cache");
            assertEquals(1L, p.zoneReadCounts().get("cached"));

            p.apply(new Changes(List.of(), List.of(), List.of(), List.of()));
            p.records();
            assertEquals(1, reads(server), "an empty change set keeps the cache");

            var created = new Endpoint("b.example.org", "A", List.of("192.0.2.2"), 0, Map.of(), "");
            p.apply(new Changes(List.of(created), List.of(), List.of(), List.of()));
            assertEquals(2, p.records().size(), "the write is seen at once");
            assertEquals(2, reads(server));

            clock.addAndGet(Duration.ofSeconds(31).toNanos());
            p.records();
            assertEquals(3, reads(server), "expired");
        }
    }

    @Test
    void zeroMeansNoCache() throws Exception {
        try (var server = new StrictWebhookProvider(List.of("example.org"))) {
            var webhook = new WebhookProvider(URI.create(server.url()), Duration.ofSeconds(5), 1);
            assertSame(webhook, CachedProvider.wrap(webhook, Duration.ZERO));
        }
    }
}
