package io.meshdns.dns.discovery;

import io.meshdns.dns.snapshot.WholeContentSink;

import io.meshdns.dns.kubernetes.MeshNaming;
import io.meshdns.dns.metrics.BuildInfo;
import io.meshdns.dns.kubernetes.MeshSettings;
import io.meshdns.dns.snapshot.ZoneContent;
import io.meshdns.model.Catalog;
import io.meshdns.model.CatalogDelta;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.CatalogSnapshot;
import io.meshdns.model.ServiceType;
import io.meshdns.model.WatchEvent;
import io.meshdns.model.WireFormat;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.Name;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The discovery client against a real HTTP server on loopback that speaks discovery's protocol
 * ({@link RecordedDiscoveryServer}), and a real snapshot file.
 */
class DiscoveryClientTest {
    private static final String TOKEN = "s3cret";
    private Vertx vertx;
    private final List<DiscoveryRecordSource> sources = new ArrayList<>();
    private final List<RecordedDiscoveryServer> servers = new ArrayList<>();
    private final AtomicReference<List<ZoneContent>> published = new AtomicReference<>();
    private SimpleMeterRegistry registry;

    @TempDir
    Path dir;

    @BeforeEach
    void setUp() {
        vertx = Vertx.vertx();
        registry = new SimpleMeterRegistry();
    }

    @AfterEach
    void tearDown() throws Exception {
        for (DiscoveryRecordSource s : sources) s.stop();
        for (RecordedDiscoveryServer s : servers) s.close();
        vertx.close().toCompletionStage().toCompletableFuture().get();
    }

    static Catalog catalog(long version, String... services) {
        List<CatalogEntry> e = new ArrayList<>();
        e.add(new CatalogEntry.Namespace("east", "shop"));
        int i = 1;
        for (String s : services) {
            e.add(new CatalogEntry.Service("east", "shop", s, ServiceType.CLUSTER_IP, List.of("10.96.0." + i++), null, List.of(), List.of()));
        }
        return Catalog.of(new CatalogSnapshot(CatalogSnapshot.FORMAT_VERSION, version, List.of(), e));
    }

    private RecordedDiscoveryServer server(Catalog truth, int port) throws Exception {
        RecordedDiscoveryServer s = new RecordedDiscoveryServer(vertx, TOKEN, truth, port);
        servers.add(s);
        return s;
    }

    private DiscoveryRecordSource source(String url, String token, Path file) throws Exception {
        return source(url, token, file, MeshSettings.defaults());
    }

    private DiscoveryRecordSource source(String url, String token, Path file, MeshSettings settings) throws Exception {
        DiscoveryClientConfig cfg = config(url, token, file);
        DiscoveryRecordSource s = new DiscoveryRecordSource(cfg, new MeshNaming(settings), vertx, registry);
        sources.add(s);
        s.start(new WholeContentSink(published::set));
        s.connectFeed(); // DnsServer has it connected once the listeners are open
        return s;
    }

    /** Whether the last published content has an A record for {@code svc.shop.svc.cluster.local}. */
    private boolean serves(String svc) {
        List<ZoneContent> zones = published.get();
        if (zones == null) return false;
        Name n = Name.fromConstantString(svc + ".shop.svc.cluster.local.");
        return zones.stream().flatMap(z -> z.records().stream()).anyMatch(r -> r instanceof ARecord && r.getName().equals(n));
    }

    private double metric(String name) {
        var g = registry.find(name).gauge();
        if (g != null) return g.value();
        var c = registry.find(name).functionCounter();
        return c == null ? Double.NaN : c.count();
    }

    @Test
    void persistedFileServesAtOnceThenTheWatchTakesOverAndIsPersisted() throws Exception {
        Path file = dir.resolve("catalog.json");
        Files.write(file, WireFormat.encode(catalog(1, "old").toSnapshot()));
        RecordedDiscoveryServer d = server(catalog(2, "web"), 0);

        DiscoveryRecordSource s = source(d.url(), TOKEN, file);
        assertTrue(serves("old"), "the file is published before start() returns");
        assertTrue(s.loaded());

        await().atMost(Duration.ofSeconds(10)).until(() -> serves("web") && !serves("old") && d.watchers() == 1);
        // The server counts the watcher when the request arrives; the client marks itself connected when the
        // response headers come back, a moment later.
        await().atMost(Duration.ofSeconds(10)).until(() -> metric("meshdns.discovery.client.connected") == 1.0);
        d.advance(catalog(3, "web", "cart"));
        await().atMost(Duration.ofSeconds(10)).until(() -> serves("cart"));
        assertEquals(3.0, metric("meshdns.discovery.client.version"));
        await().atMost(Duration.ofSeconds(10)).until(() -> WireFormat.decode(Files.readAllBytes(file), CatalogSnapshot.class).version() == 3);
        assertEquals(catalog(3, "web", "cart").toSnapshot(), WireFormat.decode(Files.readAllBytes(file), CatalogSnapshot.class));
        assertTrue(registry.find("meshdns.discovery.client.apply").timer().count() >= 3);
    }

    @Test
    void everyRequestNamesTheNodeAndVersionInItsUserAgent() throws Exception {
        RecordedDiscoveryServer d = server(catalog(4, "web"), 0);
        source(d.url(), TOKEN, null, MeshSettings.defaults().withLocalCluster("east"));
        await().atMost(Duration.ofSeconds(10)).until(() -> serves("web") && d.watchers() == 1);
        // The snapshot and the watch request: discovery's cut-off log line and status page show this.
        assertTrue(d.userAgents.size() >= 2, d.userAgents.toString());
        for (String ua : d.userAgents) assertEquals("meshdns-dns-service/" + BuildInfo.version() + " node=east", ua);
    }

    @Test
    void withoutAClusterNameTheUserAgentIsProductAndVersion() throws Exception {
        RecordedDiscoveryServer d = server(catalog(4, "web"), 0);
        source(d.url(), TOKEN, null);
        await().atMost(Duration.ofSeconds(10)).until(() -> serves("web") && d.watchers() == 1);
        assertTrue(d.userAgents.size() >= 2, d.userAgents.toString());
        for (String ua : d.userAgents) assertEquals("meshdns-dns-service/" + BuildInfo.version(), ua);
    }

    @Test
    void aClusterNameAHeaderCannotCarryIsMadeSafe() {
        assertEquals("meshdns-dns-service/1.2 node=east_1_x", HttpCatalogFeed.userAgent("1.2", "east 1\nx"));
        assertEquals("meshdns-dns-service/1.2", HttpCatalogFeed.userAgent("1.2", " "));
    }

    @Test
    void aVersionGapRefetchesTheSnapshot() throws Exception {
        RecordedDiscoveryServer d = server(catalog(10, "web"), 0);
        source(d.url(), TOKEN, null);
        await().atMost(Duration.ofSeconds(10)).until(() -> serves("web") && d.watchers() == 1);
        int before = d.snapshotRequests.get();
        d.setTruthSilently(catalog(20, "web", "late"));
        d.send(WatchEvent.of(new CatalogDelta(19, 20, null, List.of(), List.of()))); // does not apply to 10
        await().atMost(Duration.ofSeconds(10)).until(() -> serves("late"));
        assertTrue(d.snapshotRequests.get() > before);
    }

    @Test
    void discoveryDownKeepsServingAndReadyThenCatchesUpOnReconnect() throws Exception {
        RecordedDiscoveryServer d = server(catalog(1, "web"), 0);
        int port = d.port();
        DiscoveryRecordSource s = source(d.url(), TOKEN, dir.resolve("c.json"));
        await().atMost(Duration.ofSeconds(10)).until(() -> serves("web") && d.watchers() == 1);
        d.close();
        servers.remove(d);
        await().atMost(Duration.ofSeconds(10)).until(() -> metric("meshdns.discovery.client.connected") == 0.0);
        assertTrue(serves("web"), "the last catalog stays published");
        assertTrue(s.loaded(), "and the node stays ready");
        await().atMost(Duration.ofSeconds(10)).until(() -> metric("meshdns.discovery.client.reconnects") >= 2);

        RecordedDiscoveryServer back = server(catalog(1, "web"), port); // discovery restarted, same version
        await().atMost(Duration.ofSeconds(15)).until(() -> back.watchers() == 1);
        assertTrue(back.notModified.get() >= 1, "If-None-Match saved the snapshot transfer");
        back.advance(catalog(2, "web", "cart"));
        await().atMost(Duration.ofSeconds(10)).until(() -> serves("cart"));
    }

    @Test
    void aBadTokenIsRefusedAndTheNodeIsNotReadyWithoutAnyCatalog() throws Exception {
        RecordedDiscoveryServer d = server(catalog(1, "web"), 0);
        DiscoveryRecordSource s = source(d.url(), "wrong", null);
        await().atMost(Duration.ofSeconds(10)).until(() -> d.unauthorized.get() >= 2);
        assertFalse(s.loaded());
        assertFalse(serves("web"));
    }

    @Test
    void withoutDiscoveryUrlTheFileIsOnlyReadAndNothingElseIsNeeded() throws Exception {
        Path file = dir.resolve("fixture.json");
        byte[] bytes = WireFormat.encode(catalog(7, "web").toSnapshot());
        Files.write(file, bytes);
        DiscoveryRecordSource s = source(null, null, file);
        assertTrue(serves("web"));
        assertTrue(s.loaded());
        assertEquals(7, s.version());
        assertEquals(new String(bytes), Files.readString(file), "a fixture is never rewritten");
    }

    static DiscoveryClientConfig config(String url, String token, Path file) {
        return new DiscoveryClientConfig() {
            public Optional<String> discoveryUrl() {
                return Optional.ofNullable(url);
            }

            public Optional<String> discoveryToken() {
                return Optional.ofNullable(token);
            }

            public Optional<String> snapshotFile() {
                return Optional.ofNullable(file).map(Path::toString);
            }

            public Discovery discovery() {
                return new Discovery() {
                    public Duration backoffInitial() {
                        return Duration.ofMillis(50);
                    }

                    public Duration backoffMax() {
                        return Duration.ofMillis(400);
                    }

                    public Duration idleTimeout() {
                        return Duration.ofSeconds(30);
                    }

                    public Duration persistDelay() {
                        return Duration.ofMillis(100);
                    }

                    public Tls tls() {
                        return DiscoveryTlsTest.tls(null, null, null, null);
                    }
                };
            }
        };
    }
}
