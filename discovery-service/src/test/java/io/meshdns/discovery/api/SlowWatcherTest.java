package io.meshdns.discovery.api;

import io.meshdns.discovery.catalog.CatalogAggregator;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.PortSpec;
import io.meshdns.model.ServiceType;
import io.meshdns.model.WatchEvent;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The slow-watcher policy over real HTTP: a watcher whose socket is never read while megabytes of deltas
 * flow is cut off once it has stayed behind for {@code watch.max-lag} (connection closed, counted in
 * {@code meshdns_discovery_watch_cutoffs_total}), while a normal watcher on the same discovery receives
 * every delta, in order, each before the next is made.
 */
@QuarkusTest
@TestProfile(SlowWatcherTest.Profile.class)
class SlowWatcherTest {
    static final String TOKEN = "slow-watcher-token";
    static final Duration MAX_LAG = Duration.ofSeconds(1);
    /** Deltas of about 60 KB: 150 of them are several times what the kernel buffers of one loopback socket hold. */
    static final int DELTAS = 150;
    static final int ADDRESSES_PER_DELTA = 4000;

    public static class Profile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return EastManifestProfile.create("slow-watcher-", TOKEN).with(Map.of(
                    "meshdns.discovery.watch.max-queued-bytes", "64K",
                    "meshdns.discovery.watch.max-lag", MAX_LAG.toMillis() + "ms"));
        }
    }

    @TestHTTPResource("/")
    URL base;

    @Inject
    CatalogAggregator catalog;
    @Inject
    DiscoveryRoutes routes;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void aWatcherThatNeverReadsIsCutOffAndTheOthersGetEveryDeltaInOrder() throws Exception {
        // Ready and the manifest's Service in a version: a version number alone proves nothing (it starts at
        // the clock), and a snapshot taken before the first flush would see the manifest arrive as a delta.
        await().atMost(Duration.ofSeconds(30)).until(() -> catalog.isReady()
                && catalog.current().entries().values().stream().anyMatch(e -> e instanceof CatalogEntry.Service s && s.name().equals("web")));
        URI uri = URI.create(base.toString());

        // The slow one: a request, then never a read; a 4 KB receive buffer so the kernel holds little for it.
        try (Socket slow = new Socket()) {
            slow.setReceiveBufferSize(4096);
            slow.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 5000);
            OutputStream out = slow.getOutputStream();
            out.write(("GET /v1/watch HTTP/1.1\r\nHost: " + uri.getHost() + "\r\nUser-Agent: never-reads\r\nAuthorization: Bearer "
                    + TOKEN + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String slowRemote = "127.0.0.1:" + slow.getLocalPort();

            LinkedBlockingQueue<WatchEvent> normal = new LinkedBlockingQueue<>();
            CompletableFuture<HttpResponse<Void>> normalStream = http.sendAsync(
                    HttpRequest.newBuilder(uri.resolve("/v1/watch")).header("Authorization", "Bearer " + TOKEN)
                            .header("User-Agent", "reads-everything").build(),
                    HttpResponse.BodyHandlers.fromLineSubscriber(new WatchEventQueue(normal)));
            WatchEvent first = normal.poll(30, TimeUnit.SECONDS);
            assertNotNull(first, "the normal watcher got no first line");
            assertEquals(WatchEvent.SNAPSHOT, first.type());
            await().atMost(Duration.ofSeconds(10)).until(() -> routes.watchClients().open().stream()
                    .anyMatch(c -> c.remote().equals(slowRemote)));

            // Every delta reaches the normal watcher before the next is made: the slow one never holds it up.
            List<WatchEvent> received = new ArrayList<>();
            long version = first.version();
            for (int i = 0; i < DELTAS; i++) {
                catalog.upsert(bulky(i));
                catalog.flush(); // or the batch window's own flush, whichever runs first: one version either way
                long made = catalog.current().version();
                assertTrue(made > version, "delta " + i + " made a version");
                version = awaitVersion(normal, received, made, "delta " + i);
            }
            long lastPushed = System.nanoTime();

            await().atMost(MAX_LAG.plusSeconds(15)).pollInterval(Duration.ofMillis(100))
                    .until(() -> routes.watchClients().open().stream().noneMatch(c -> c.remote().equals(slowRemote)));
            double cutAfterSeconds = (System.nanoTime() - lastPushed) / 1e9;
            assertTrue(metrics().contains("meshdns_discovery_watch_cutoffs_total 1.0"), "one cut-off counted");
            assertClosedByPeer(slow);

            // Still flowing to the normal watcher after the cut-off.
            catalog.upsert(bulky(DELTAS));
            catalog.flush();
            version = awaitVersion(normal, received, catalog.current().version(), "the delta after the cut-off");

            // A cluster-status change of its own (a sync time, a health flip) may make a version between two of
            // ours: it must arrive in order like the rest, and every one of our upserts exactly once.
            long expectedFrom = first.version();
            int bulkyDeltas = 0;
            for (WatchEvent e : received) {
                assertEquals(WatchEvent.DELTA, e.type(), "only deltas after the first snapshot (never skipped, no resync)");
                assertEquals(expectedFrom, e.delta().fromVersion(), "in order, none missing");
                expectedFrom = e.delta().toVersion();
                if (e.delta().upserts().stream().anyMatch(u -> u instanceof CatalogEntry.Service s && s.name().equals("bulky"))) {
                    bulkyDeltas++;
                } else {
                    assertTrue(e.delta().upserts().isEmpty() && e.delta().deletes().isEmpty(),
                            "a delta between ours changes cluster status only: " + e.delta());
                }
            }
            assertEquals(version, expectedFrom);
            assertEquals(DELTAS + 1, bulkyDeltas, "each of our upserts in exactly one delta");
            assertFalse(normalStream.isDone(), "the normal watcher is still connected");
            System.out.printf("slow watcher cut off %.1f s after the last of %d deltas%n", cutAfterSeconds, DELTAS);
        }
    }

    private static long awaitVersion(LinkedBlockingQueue<WatchEvent> q, List<WatchEvent> received, long version, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            WatchEvent e = q.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (e == null) throw new AssertionError(what + ": version " + version + " did not reach the normal watcher in 20 s");
            if (WatchEvent.HEARTBEAT.equals(e.type())) continue;
            received.add(e);
            if (e.version() >= version) return e.version();
        }
    }

    /** The peer closed: whatever the kernel still held for us, then end of stream (or a reset), within 10 s. */
    private static void assertClosedByPeer(Socket s) throws IOException {
        s.setSoTimeout(10_000);
        InputStream in = s.getInputStream();
        byte[] buf = new byte[64 * 1024];
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        try {
            while (System.nanoTime() < deadline) {
                if (in.read(buf) < 0) return;
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the slow watcher's connection is still open", e);
        } catch (SocketException e) {
            return; // reset by discovery: closed as well
        }
        throw new AssertionError("the slow watcher's connection still delivers bytes after 10 s");
    }

    private String metrics() throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base.toString()).resolve("/q/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    /** One Service with a long address list: a delta line of about 60 KB. */
    private static CatalogEntry bulky(int round) {
        List<String> ingress = new ArrayList<>(ADDRESSES_PER_DELTA);
        for (int i = 0; i < ADDRESSES_PER_DELTA; i++) ingress.add("10." + (round % 250) + "." + (i / 250) + "." + (i % 250 + 1));
        return new CatalogEntry.Service("east", "shop", "bulky", ServiceType.LOAD_BALANCER, List.of("10.96.1.1"), null,
                List.of(new PortSpec("http", "TCP", 80)), Collections.unmodifiableList(ingress), List.of(), false);
    }
}
