package io.meshdns.exposure.sync;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshdns.exposure.config.ExposureConfig;
import io.meshdns.exposure.config.RecordTypesConfig;
import io.meshdns.exposure.config.TargetNetsConfig;
import io.meshdns.exposure.provider.CachedProvider;
import io.meshdns.exposure.provider.ProviderCacheConfig;
import io.meshdns.exposure.config.ExposureSettings;
import io.meshdns.exposure.provider.Provider;
import io.meshdns.exposure.provider.ProviderException;
import io.meshdns.exposure.provider.ProviderFactory;
import io.quarkus.arc.All;
import io.meshdns.exposure.registry.RegistryFactory;
import io.meshdns.exposure.source.ObjectTranslation;
import io.meshdns.exposure.source.Problem;
import io.meshdns.exposure.source.Source;
import io.meshdns.exposure.source.SourceFilter;
import io.meshdns.exposure.source.SourceFilterConfig;
import io.meshdns.exposure.source.SourceOutput;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * The sync loop, wired from three parts: the {@link LeaderGate} (only the Lease holder writes), the
 * {@link PassScheduler} (debounced events, the periodic pass, backoff) and the {@link ProblemReporter}
 * (Events and DNSEndpoint status). A pass translates the informer caches once and reconciles every
 * provider target independently; since each pass re-reads the zone, a half-applied change is
 * repaired by comparing the data records themselves.
 */
@ApplicationScoped
public class ExposureController {

    private static final Logger LOG = Logger.getLogger(ExposureController.class);

    private final ExposureConfig config;
    private final KubernetesClient client;
    private final MeterRegistry meterRegistry;

    private ExposureSettings settings;
    private List<Reconciler> reconcilers = List.of();
    private DesiredSources sources;
    private ExposureMetrics metrics;
    private PassScheduler scheduler;
    private LeaderGate gate;
    private ProblemReporter reporter;
    /** Targets whose provider has answered a read at least once (readiness). */
    private final Set<String> answered = ConcurrentHashMap.newKeySet();
    /** What the last pass did, for the status page: replaced as a whole at the end of each pass. */
    private volatile PassReport lastPass = PassReport.NONE;

    private final List<ProviderFactory> factories;
    private final List<RegistryFactory> registries;
    private final RecordTypesConfig recordTypes;
    private final ProviderCacheConfig providerCache;
    private final TargetNetsConfig targetNets;
    private final List<Source> sourceBeans;
    private final SourceFilterConfig sourceFilter;

    public ExposureController(ExposureConfig config, KubernetesClient client, MeterRegistry meterRegistry,
                              @All List<ProviderFactory> factories, @All List<RegistryFactory> registries,
                              RecordTypesConfig recordTypes, ProviderCacheConfig providerCache, TargetNetsConfig targetNets,
                              @All List<Source> sourceBeans, SourceFilterConfig sourceFilter) {
        this.sourceFilter = sourceFilter;
        this.sourceBeans = List.copyOf(sourceBeans);
        this.config = config;
        this.targetNets = targetNets;
        this.providerCache = providerCache;
        this.recordTypes = recordTypes;
        this.factories = List.copyOf(factories);
        this.registries = List.copyOf(registries);
        this.client = client;
        this.meterRegistry = meterRegistry;
    }

    void onStart(@Observes StartupEvent ev) {
        // fails the start, naming the key
        settings = ExposureSettings.from(config, factories, ObjectTranslation.byName(sourceBeans).keySet());
        var translation = new ObjectTranslation(sourceBeans, settings.sources(), settings.enabledSources(),
                SourceFilter.of(sourceFilter));
        LOG.infof("exposure-service: sources %s", translation.names());
        RegistryFactory registryKind = RegistryFactory.named(registries, config.registry());
        var types = recordTypes.filter();
        var nets = targetNets.filter();
        var list = new ArrayList<Reconciler>();
        if (providerCache.providerCacheTime().isNegative()) {
            throw new IllegalArgumentException("meshdns.exposure.provider-cache-time: must not be negative");
        }
        var providers = settings.providers().stream().map(p -> CachedProvider.wrap(p, providerCache.providerCacheTime())).toList();
        for (Provider provider : providers) {
            // claim TTL 0 = "not configured": each provider writes the TTL ExternalDNS's would (rfc2136: 0)
            var registry = registryKind.create(new RegistryFactory.Context(provider, settings.ownerId(), settings.txtNames(), 0,
                    settings.adoptOwners(), settings.claims()));
            list.add(new Reconciler(registry, settings.policy(), settings.filter(), settings.dryRun(), settings.txtNames(), types, nets));
        }
        reconcilers = List.copyOf(list);
        metrics = new ExposureMetrics(meterRegistry);
        providers.forEach(metrics::zoneReads);
        boolean cluster = config.manifestDirs().map(List::isEmpty).orElse(true);
        if (!cluster) {
            var dirs = new ArrayList<java.nio.file.Path>();
            for (String d : config.manifestDirs().get()) {
                var path = java.nio.file.Path.of(d.trim());
                if (!java.nio.file.Files.isDirectory(path)) {
                    throw new IllegalArgumentException("meshdns.exposure.manifest-dirs: '" + d + "' is not a directory");
                }
                dirs.add(path);
            }
            sources = new ManifestSources(dirs, translation);
        }
        if (config.once()) {
            if (sources == null) sources = new KubernetesSources(client, translation, () -> { });
            int status = OncePass.run(sources, reconcilers, settings.dryRun(), System.out);
            sources.close();
            LOG.infof("exposure-service: one pass done, exit status %d", status);
            io.quarkus.runtime.Quarkus.asyncExit(status);
            return;
        }
        reporter = new ProblemReporter(cluster ? client : null,
                (ns, name) -> sources instanceof KubernetesSources k ? k.dnsEndpoint(ns, name) : null);
        scheduler = new PassScheduler(config.interval(), this::pass);
        gate = new LeaderGate(client, config.leaderElection(), cluster, scheduler.executor(), () -> scheduler.trigger(Duration.ZERO));
        if (sources == null) {
            sources = new KubernetesSources(client, translation, () -> scheduler.trigger(config.debounce()));
        }
        scheduler.execute(this::startSources);
        gate.start();
        scheduler.start();
        LOG.infof("exposure-service: owner %s, policy %s, %s%s, targets %s", settings.ownerId(), settings.policy().configName(),
                settings.dryRun() ? "DRY-RUN, " : "", "interval " + config.interval(),
                reconcilers.stream().map(Reconciler::target).toList());
    }

    void onStop(@Observes ShutdownEvent ev) {
        if (gate != null) gate.close();
        if (scheduler != null) scheduler.close();
        if (sources != null) sources.close();
    }

    private void startSources() {
        try {
            sources.start();
            scheduler.trigger(Duration.ZERO);
        } catch (RuntimeException e) {
            LOG.errorf("starting informers failed (%s); retrying on the next pass", e.getMessage());
        }
    }

    /** True once the informers have synced: before that an empty cache must not be mistaken for "nothing wanted". */
    public boolean sourcesReady() {
        return sources != null && sources.started();
    }

    /** True once every provider target has answered a read (a pass, or the readiness probe of a non-leader). */
    public boolean providersAnswered() {
        return !reconcilers.isEmpty() && reconcilers.stream().allMatch(r -> answered.contains(r.target()));
    }

    /** The last pass's report ({@link PassReport#NONE} before the first): read-only, never changes once published. */
    public PassReport lastPass() {
        return lastPass;
    }

    public boolean isLeader() {
        return gate != null && gate.isLeader();
    }

    /** The sync thread is running and no pass has been stuck for more than ten intervals (liveness). */
    public boolean syncAlive() {
        return scheduler != null && scheduler.alive()
                && scheduler.running().compareTo(config.interval().multipliedBy(10).plusMinutes(5)) < 0;
    }

    private boolean pass() {
        if (!sources.started()) {
            startSources();
            return true;
        }
        if (!isLeader()) {
            probeProviders();
            return true;
        }
        return reconcile().failed() == 0;
    }

    /** A replica that does not lead still proves it can reach its providers before it says it is ready. */
    private void probeProviders() {
        for (Reconciler r : reconcilers) {
            if (answered.contains(r.target())) continue;
            try {
                r.registry().records();
                answered.add(r.target());
            } catch (ProviderException | RuntimeException e) {
                LOG.debugf("[%s] not answering yet: %s", r.target(), e.getMessage());
            }
        }
    }

    /**
     * One full pass over every target, now, on the caller's thread (tests call this directly).
     * Returns one outcome per target that succeeded; nothing when this replica is not the leader.
     */
    public List<Reconciler.Outcome> reconcileNow() {
        return reconcile().outcomes();
    }

    record PassResult(List<Reconciler.Outcome> outcomes, int failed) {
    }

    private synchronized PassResult reconcile() {
        if (!isLeader() || !sourcesReady()) return new PassResult(List.of(), 0);
        long started = System.nanoTime();
        SourceOutput output = sources.collect();
        var desired = output.toDesired();
        var outcomes = new ArrayList<Reconciler.Outcome>();
        var problems = new ArrayList<>(output.problems());
        var published = new java.util.TreeSet<String>();
        int failed = 0;
        for (Reconciler r : reconcilers) {
            try {
                var o = r.reconcile(desired);
                answered.add(r.target());
                outcomes.add(o);
                problems.addAll(o.problems());
                published.addAll(o.published());
                reporter.record(RecordEvents.of(o, settings.ownerId(), settings.eventsEmit()));
                metrics.records(o.recordsByType());
                metrics.ownerMismatches(o.ownerMismatches());
                if (o.applied()) {
                    metrics.changes("create", o.changes().create().size());
                    metrics.changes("update", o.changes().updateNew().size());
                    metrics.changes("delete", o.changes().delete().size());
                }
            } catch (ProviderException | RuntimeException e) {
                failed++;
                metrics.error();
                LOG.warnf("[%s] reconcile failed: %s", r.target(), e.getMessage());
            }
        }
        var publishedProblems = new ArrayList<Problem>();
        for (String resource : published) {
            Problem.about(resource, Problem.PUBLISHED, "records published to " + reconcilers.size() + " target(s)")
                    .ifPresent(publishedProblems::add);
        }
        reporter.report(problems, publishedProblems);
        if (failed == 0) metrics.synced(Instant.now().getEpochSecond());
        lastPass = PassReport.after(lastPass, started, reconcilers.size(), failed, outcomes, problems);
        return new PassResult(outcomes, failed);
    }
}
