package io.meshdns.discovery.api;

import io.meshdns.discovery.catalog.CatalogAggregator;
import io.meshdns.model.WatchEvent;
import io.meshdns.testsupport.MockKubernetesCluster;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A watcher resuming from a version this discovery never made ({@code since} above its catalog: another
 * replica, or this one before a restart with a clock behind) gets a snapshot, also when it connects
 * while discovery is still waiting for its initial sync. Here the wait is a remote cluster whose API
 * server refuses connections, ended by {@code initial-sync-timeout}; before, the stream kept the
 * client's version and dropped every delta as already seen: heartbeats only, never a catalog.
 */
@QuarkusTest
@TestProfile(FutureSinceWatchTest.Profile.class)
class FutureSinceWatchTest {
    static final String TOKEN = "future-since-token";
    static final Duration INITIAL_SYNC_TIMEOUT = Duration.ofSeconds(6);

    public static class Profile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            try {
                EastManifestProfile east = EastManifestProfile.create("future-since-", TOKEN);
                Path remotes = Files.createDirectories(east.dir().resolve("remotes"));
                int closedPort;
                try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                    closedPort = s.getLocalPort();
                }
                Files.writeString(remotes.resolve("west.yaml"), MockKubernetesCluster.kubeconfig("west", "http://127.0.0.1:" + closedPort));
                return east.with(Map.of(
                        "meshdns.discovery.remote-kubeconfig-dir", remotes.toString(),
                        "meshdns.discovery.heartbeat-interval", "1s",
                        "meshdns.discovery.initial-sync-timeout", INITIAL_SYNC_TIMEOUT.toMillis() + "ms"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @TestHTTPResource("/")
    URL base;

    @Inject
    CatalogAggregator catalog;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void futureSinceGetsASnapshotOnceReadyAndAtOnceWhenReady() throws Exception {
        assertFalse(catalog.isReady(), "the test needs discovery still waiting for the unreachable cluster's initial sync");
        long future = catalog.current().version() + 1_000_000_000L;

        WatchEvent whileWaiting = firstEventOfAWatch(future, INITIAL_SYNC_TIMEOUT.plusSeconds(15));
        assertNotNull(whileWaiting, "a watcher with since=<future> connected before ready never got a catalog");
        assertEquals(WatchEvent.SNAPSHOT, whileWaiting.type());
        assertTrue(whileWaiting.version() < future, "the snapshot is this discovery's version, not the client's");
        assertTrue(whileWaiting.snapshot().entries().stream().anyMatch(x -> x.ref().name().equals("web")),
                "the manifest's Service is in it");

        assertTrue(catalog.isReady());
        WatchEvent whenReady = firstEventOfAWatch(future, Duration.ofSeconds(10));
        assertNotNull(whenReady, "a watcher with since=<future> connected when ready got no catalog");
        assertEquals(WatchEvent.SNAPSHOT, whenReady.type());
    }

    /** Watches from {@code since} until its first event other than a heartbeat (null if none within), then hangs up. */
    private WatchEvent firstEventOfAWatch(long since, Duration within) throws InterruptedException {
        LinkedBlockingQueue<WatchEvent> events = new LinkedBlockingQueue<>();
        CompletableFuture<HttpResponse<Void>> stream = watch(since, events);
        try {
            return firstNonHeartbeat(events, within);
        } finally {
            stream.cancel(true);
        }
    }

    private CompletableFuture<HttpResponse<Void>> watch(long since, LinkedBlockingQueue<WatchEvent> into) {
        URI uri = URI.create(base.toString()).resolve("/v1/watch?since=" + since);
        return http.sendAsync(HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + TOKEN).build(),
                HttpResponse.BodyHandlers.fromLineSubscriber(new WatchEventQueue(into)));
    }

    private static WatchEvent firstNonHeartbeat(LinkedBlockingQueue<WatchEvent> q, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            WatchEvent e = q.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (e != null && !WatchEvent.HEARTBEAT.equals(e.type())) return e;
        }
        return null;
    }
}
