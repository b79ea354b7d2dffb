package io.meshdns.dns.discovery;

import io.meshdns.dns.snapshot.WholeContentSink;

import io.meshdns.dns.kubernetes.MeshNaming;
import io.meshdns.dns.kubernetes.MeshSettings;
import io.meshdns.dns.snapshot.ZoneContent;
import io.meshdns.model.Catalog;
import io.meshdns.model.CatalogDelta;
import io.meshdns.model.WatchEvent;
import io.meshdns.model.WireFormat;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.Name;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The in-process feed on a real Vert.x event bus, with the message shapes discovery-service's EventBusPublisher
 * uses: WatchEvent NDJSON lines as Strings on meshdns.catalog, and a snapshot line as the reply on
 * meshdns.catalog.snapshot (failing with 503 until discovery's first sync).
 */
class EventBusFeedTest {
    private final Vertx vertx = Vertx.vertx();
    private DiscoveryRecordSource source;

    @AfterEach
    void tearDown() throws Exception {
        if (source != null) source.stop();
        vertx.close().toCompletionStage().toCompletableFuture().get();
    }

    private static String line(WatchEvent e) {
        return new String(WireFormat.encode(e), StandardCharsets.UTF_8) + "\n";
    }

    @Test
    void waitsForDiscoveryThenFollowsPublishedDeltasAndResyncsOnAGap() throws Exception {
        AtomicReference<Catalog> truth = new AtomicReference<>(DiscoveryClientTest.catalog(1, "web"));
        AtomicBoolean ready = new AtomicBoolean(false);
        vertx.eventBus().consumer(EventBusCatalogFeed.SNAPSHOT_ADDRESS, msg -> {
            if (!ready.get()) msg.fail(503, "initial sync in progress");
            else msg.reply(line(WatchEvent.of(truth.get().toSnapshot())));
        });
        AtomicReference<List<ZoneContent>> published = new AtomicReference<>();
        source = new DiscoveryRecordSource(DiscoveryClientTest.config(DiscoveryClientConfig.EVENT_BUS, null, null),
                new MeshNaming(MeshSettings.defaults()), vertx, new SimpleMeterRegistry());
        source.start(new WholeContentSink(published::set));
        source.connectFeed(); // DnsServer has it connected once the listeners are open
        assertTrue(!source.loaded());
        ready.set(true);
        await().atMost(Duration.ofSeconds(10)).until(() -> serves(published, "web"));

        Catalog next = DiscoveryClientTest.catalog(2, "web", "cart");
        vertx.eventBus().publish(EventBusCatalogFeed.ADDRESS, line(WatchEvent.of(Catalog.diff(truth.get(), next))));
        truth.set(next);
        await().atMost(Duration.ofSeconds(10)).until(() -> serves(published, "cart"));

        truth.set(DiscoveryClientTest.catalog(9, "web", "cart", "late"));
        vertx.eventBus().publish(EventBusCatalogFeed.ADDRESS, line(WatchEvent.of(new CatalogDelta(8, 9, null, List.of(), List.of()))));
        await().atMost(Duration.ofSeconds(10)).until(() -> serves(published, "late"));
    }

    private static boolean serves(AtomicReference<List<ZoneContent>> published, String svc) {
        List<ZoneContent> zones = published.get();
        if (zones == null) return false;
        Name n = Name.fromConstantString(svc + ".shop.svc.cluster.local.");
        return zones.stream().flatMap(z -> z.records().stream()).anyMatch(r -> r instanceof ARecord && r.getName().equals(n));
    }
}
