package io.meshdns.dns.discovery;

import io.meshdns.dns.InvalidConfigException;

import io.meshdns.dns.kubernetes.MeshNaming;
import io.meshdns.dns.kubernetes.MeshZoneCompiler;
import io.meshdns.dns.kubernetes.MeshZones;
import io.meshdns.dns.metrics.BuildInfo;
import io.meshdns.dns.metrics.Counters;
import io.meshdns.dns.base.DaemonThreads;
import io.meshdns.dns.base.ListenersOpened;
import io.meshdns.dns.snapshot.RecordSource;
import io.meshdns.dns.snapshot.SourceContent;
import io.meshdns.dns.snapshot.ZoneContent;
import io.meshdns.dns.snapshot.ZonePatch;
import io.meshdns.model.Catalog;
import io.meshdns.model.CatalogDelta;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.CatalogSnapshot;
import io.meshdns.model.ObjectRef;
import io.meshdns.model.WatchEvent;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * The catalog as a {@link RecordSource}: the persisted snapshot file first (a restarted node serves before
 * discovery answers), then, once the DNS listeners are open, the live feed (HTTP watch or the in-process event bus). Every change is applied,
 * compiled by {@link MeshNaming} and published on one "catalog" thread, in order, off the event loop; the
 * snapshot file is rewritten (debounced, atomically) after changes.
 */
@ApplicationScoped
public class DiscoveryRecordSource implements RecordSource, CatalogSink {
    private static final Logger LOG = Logger.getLogger(DiscoveryRecordSource.class);

    private final DiscoveryClientConfig config;
    private final MeshNaming naming;
    private final Vertx vertx;
    private final MeterRegistry registry;

    private final CatalogFollower follower = new CatalogFollower();
    private final AtomicLong versionGauge = new AtomicLong(-1);
    private final AtomicInteger connectedGauge = new AtomicInteger();
    private ScheduledExecutorService catalogThread;
    private Sink sink;
    private SnapshotFile snapshotFile;
    private HttpCatalogFeed httpFeed;
    private EventBusCatalogFeed busFeed;
    private LongAdder reconnects;
    private Timer applyTimer;
    private ProgrammingLatency programming;
    private volatile boolean loaded;
    private boolean persistScheduled;
    /** The feed to connect once the listeners are open (see {@link #connectFeed()}); null once connected. */
    private String feedUrl;
    private boolean stopped;

    @Inject
    public DiscoveryRecordSource(DiscoveryClientConfig config, MeshNaming naming, Vertx vertx, MeterRegistry registry) {
        this.config = config;
        this.naming = naming;
        this.vertx = vertx;
        this.registry = registry;
    }

    @Override
    public String id() {
        return "discovery:" + config.discoveryUrl().orElse(config.snapshotFile().map(f -> "file:" + f).orElse("none"));
    }

    /** Whether this node needs a catalog at all (a discovery feed or a snapshot file is configured). */
    public boolean configured() {
        return config.discoveryUrl().isPresent() || config.snapshotFile().isPresent();
    }

    /** True once any catalog (file or network) has been published. */
    public boolean loaded() {
        return loaded;
    }

    @Override
    public synchronized void start(Sink sink) throws Exception {
        validate(config);
        DiscoveryTls.of(vertx, config.discoveryUrl().orElse(null), config.discovery().tls()); // fails the start naming the key
        this.sink = sink;
        registry.gauge("meshdns.discovery.client.version", versionGauge);
        registry.gauge("meshdns.discovery.client.connected", connectedGauge);
        reconnects = Counters.register(registry, "meshdns.discovery.client.reconnects", "Reconnects of the discovery feed");
        applyTimer = Timer.builder("meshdns.discovery.client.apply").description("Apply, compile and publish of one catalog change")
                .register(registry);
        programming = new ProgrammingLatency(registry);
        catalogThread = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("meshdns-catalog"));
        if (!configured()) {
            sink.publish(List.of(), null); // no catalog: cluster.local is not ours, it forwards like any other name
            return;
        }
        config.snapshotFile().ifPresent(f -> snapshotFile = new SnapshotFile(Path.of(f)));
        if (snapshotFile != null) {
            try {
                CatalogSnapshot stored = snapshotFile.load();
                if (stored != null) {
                    // Synchronously: the node serves the last known catalog before any network round trip.
                    offer(() -> WatchEvent.of(stored)).toCompletableFuture().get();
                    LOG.infof("serving the persisted catalog version %d from %s", stored.version(), snapshotFile.path());
                } else {
                    LOG.infof("no snapshot file at %s yet", snapshotFile.path());
                }
            } catch (Exception e) {
                LOG.warnf("ignoring unreadable snapshot file %s: %s", snapshotFile.path(), e.getMessage());
            }
        }
        String url = config.discoveryUrl().orElse(null);
        if (url == null) {
            if (!loaded) sink.publish(List.of(), null);
            loaded = true; // a file-only node is as ready as its file makes it
            return;
        }
        feedUrl = url;
    }

    /**
     * Connects the live feed, once (later calls do nothing). DnsServer has it called once the listeners are
     * open: the persisted catalog is served from the first query, and the feed's first connection (the HTTP
     * client and its resolver are built on an event loop then) no longer delays the listeners' bind, which
     * waited on the same event loops. A node without a snapshot file is not ready until the feed has
     * delivered, as before.
     */
    public synchronized void connectFeed() {
        String url = feedUrl;
        if (url == null || stopped) return;
        feedUrl = null;
        if (DiscoveryClientConfig.EVENT_BUS.equalsIgnoreCase(url)) {
            busFeed = new EventBusCatalogFeed(vertx, this, config.discovery().backoffInitial(), config.discovery().backoffMax());
            busFeed.start();
        } else {
            String userAgent = HttpCatalogFeed.userAgent(BuildInfo.version(), naming.settings().localCluster());
            httpFeed = new HttpCatalogFeed(vertx, url, config.discoveryToken().orElse(null), userAgent,
                    config.discovery().backoffInitial(), config.discovery().backoffMax(), config.discovery().idleTimeout(), this,
                    DiscoveryTls.of(vertx, url, config.discovery().tls()));
            httpFeed.start();
        }
    }

    void connectOnceListening(@Observes ListenersOpened opened) {
        connectFeed();
    }

    @Override
    public synchronized void stop() {
        stopped = true;
        if (httpFeed != null) httpFeed.stop();
        if (busFeed != null) busFeed.stop();
        if (catalogThread != null) {
            try {
                catalogThread.submit(this::persistNow).get(5, TimeUnit.SECONDS);
            } catch (Exception e) {
                LOG.debugf("final snapshot persist skipped: %s", e.getMessage());
            }
            catalogThread.shutdownNow();
        }
    }

    @Override
    public CompletionStage<CatalogFollower.Outcome> offer(Callable<WatchEvent> decode) {
        CompletableFuture<CatalogFollower.Outcome> result = new CompletableFuture<>();
        catalogThread.execute(() -> {
            try {
                WatchEvent event = decode.call();
                long start = System.nanoTime();
                CatalogFollower.Outcome outcome = follower.accept(event);
                if (outcome == CatalogFollower.Outcome.CHANGED) {
                    CatalogDelta delta = WatchEvent.DELTA.equals(event.type()) ? event.delta() : null;
                    publish(follower.catalog(), delta);
                    applyTimer.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
                    if (delta != null) programming.observe(delta, follower.catalog(), java.time.Instant.now());
                }
                result.complete(outcome);
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        return result;
    }

    /** Compiles and publishes {@code catalog}: only what {@code delta} changed when there is one, else everything. */
    private void publish(Catalog catalog, CatalogDelta delta) {
        MeshZoneCompiler.MeshUpdate update;
        if (delta == null) {
            MeshZones whole = naming.compile(catalog);
            update = new MeshZoneCompiler.MeshUpdate(null, whole.zones(), whole.index(), whole.warnings());
        } else {
            List<ObjectRef> changed = new ArrayList<>(delta.upserts().size() + delta.deletes().size());
            for (CatalogEntry e : delta.upserts()) changed.add(e.ref());
            changed.addAll(delta.deletes());
            update = naming.update(catalog, changed);
        }
        // The index rides in the same snapshot as the records it describes: one swap, one read per query.
        if (update.whole()) {
            sink.publish(update.zones(), update.index());
        } else {
            sink.patch(update.patches(), naming.compiler().content(), update.index());
        }
        naming.activate(update.index());
        versionGauge.set(catalog.version());
        loaded = true;
        schedulePersist();
    }

    private void schedulePersist() {
        if (snapshotFile == null || config.discoveryUrl().isEmpty() || persistScheduled) return;
        persistScheduled = true;
        catalogThread.schedule(this::persistNow, config.discovery().persistDelay().toMillis(), TimeUnit.MILLISECONDS);
    }

    private void persistNow() {
        persistScheduled = false;
        Catalog c = follower.catalog();
        if (snapshotFile == null || config.discoveryUrl().isEmpty() || c == null) return;
        try {
            snapshotFile.write(c.toSnapshot());
        } catch (Exception e) {
            LOG.warnf("could not persist the catalog to %s: %s", snapshotFile.path(), e.getMessage());
        }
    }

    @Override
    public long version() {
        return follower.version();
    }

    /** The catalog this node compiled its mesh names from (what explain reports as source objects). */
    public io.meshdns.model.Catalog catalog() {
        return follower.catalog();
    }

    /** Whether the feed from discovery-service is connected now (the status page; the gauge exports the same). */
    public boolean isConnected() {
        return connectedGauge.get() == 1;
    }

    @Override
    public void connected(boolean up) {
        connectedGauge.set(up ? 1 : 0);
    }

    @Override
    public void reconnecting() {
        reconnects.increment();
    }

    /** Fails the start naming the key when {@code meshdns.dns.discovery-url} is neither http(s) nor the event bus. */
    static void validate(DiscoveryClientConfig config) {
        String url = config.discoveryUrl().map(String::trim).orElse("");
        if (url.isEmpty() || url.equalsIgnoreCase(DiscoveryClientConfig.EVENT_BUS)) return;
        try {
            URI uri = URI.create(url);
            if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
                throw new IllegalArgumentException("scheme must be http or https, with a host");
            }
        } catch (IllegalArgumentException e) {
            throw new InvalidConfigException("meshdns.dns.discovery-url",
                    "'" + url + "' is neither an http(s)://host:port URL nor '" + DiscoveryClientConfig.EVENT_BUS + "': " + e.getMessage());
        }
    }
}
