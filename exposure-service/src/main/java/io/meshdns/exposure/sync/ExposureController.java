package io.meshdns.exposure.sync;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.meshdns.exposure.config.ExposureConfig;
import io.meshdns.exposure.config.ExposureSettings;
import io.meshdns.exposure.provider.ProviderException;
import io.meshdns.exposure.provider.rfc2136.Rfc2136Provider;
import io.meshdns.exposure.registry.TxtRegistry;
import io.meshdns.exposure.source.Problem;
import io.meshdns.exposure.source.SourceOutput;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * The sync loop: Kubernetes events (debounced) and a periodic timer trigger a pass; a pass
 * translates the informer caches once and reconciles every provider target independently. Only the
 * Lease holder writes. A failed target is retried with exponential backoff (1 s doubling, capped at
 * the interval); since each pass re-reads the zone, a half-applied UPDATE is repaired by comparing
 * the data records themselves.
 */
@ApplicationScoped
public class ExposureController {

    private static final Logger LOG = Logger.getLogger(ExposureController.class);

    private final ExposureConfig config;
    private final KubernetesClient client;
    private final MeterRegistry meterRegistry;

    private ExposureSettings settings;
    private List<Reconciler> reconcilers = List.of();
    private KubernetesSources sources;
    private ExposureMetrics metrics;
    private ScheduledExecutorService executor;
    private ScheduledFuture<?> pending;
    private volatile boolean leader;
    private CompletableFuture<?> election;
    private int consecutiveFailures;
    private final Map<String, String> reportedProblems = new HashMap<>();
    private final Object triggerLock = new Object();

    public ExposureController(ExposureConfig config, KubernetesClient client, MeterRegistry meterRegistry) {
        this.config = config;
        this.client = client;
        this.meterRegistry = meterRegistry;
    }

    void onStart(@Observes StartupEvent ev) {
        settings = ExposureSettings.from(config); // fails the start, naming the key
        var list = new ArrayList<Reconciler>();
        for (Rfc2136Provider.Settings target : settings.targets()) {
            var registry = new TxtRegistry(new Rfc2136Provider(target), settings.ownerId(), settings.txtNames(), config.defaultTtl());
            list.add(new Reconciler(registry, settings.policy(), settings.filter(), settings.dryRun()));
        }
        reconcilers = List.copyOf(list);
        metrics = new ExposureMetrics(meterRegistry);
        executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "meshdns-exposure-sync");
            t.setDaemon(true);
            return t;
        });
        sources = new KubernetesSources(client, settings.sources(), settings.enabledSources(), this::onKubernetesChange);
        executor.execute(this::startSources);
        leader = !config.leaderElection().enabled();
        if (config.leaderElection().enabled()) startLeaderElection();
        long interval = config.interval().toMillis();
        executor.scheduleWithFixedDelay(this::safePass, interval, interval, TimeUnit.MILLISECONDS);
        LOG.infof("exposure-service: owner %s, policy %s, %s%s, targets %s", settings.ownerId(), settings.policy().configName(),
                settings.dryRun() ? "DRY-RUN, " : "", "interval " + config.interval(),
                reconcilers.stream().map(Reconciler::target).toList());
    }

    void onStop(@Observes ShutdownEvent ev) {
        if (executor != null) executor.shutdownNow();
        if (election != null) election.cancel(true);
        if (sources != null) sources.close();
    }

    private void startSources() {
        try {
            sources.start();
            trigger(Duration.ZERO);
        } catch (RuntimeException e) {
            LOG.errorf("starting informers failed (%s); retrying on the next pass", e.getMessage());
        }
    }

    /** True once the informers have synced: before that an empty cache must not be mistaken for "nothing wanted". */
    public boolean sourcesReady() {
        return sources != null && sources.started();
    }

    private void startLeaderElection() {
        var le = config.leaderElection();
        String ns = le.leaseNamespace().or(() -> java.util.Optional.ofNullable(System.getenv("POD_NAMESPACE"))).orElse("default");
        String identity = java.util.Optional.ofNullable(System.getenv("HOSTNAME")).orElse("exposure") + "-" + UUID.randomUUID().toString().substring(0, 8);
        LeaderElector elector = client.leaderElector().withConfig(new LeaderElectionConfigBuilder()
                .withName("meshdns-exposure")
                .withLock(new LeaseLock(ns, le.leaseName(), identity))
                .withLeaseDuration(le.leaseDuration())
                .withRenewDeadline(le.renewDeadline())
                .withRetryPeriod(le.retryPeriod())
                .withReleaseOnCancel(true)
                .withLeaderCallbacks(new LeaderCallbacks(
                        () -> {
                            LOG.infof("%s leads Lease %s/%s: writing records", identity, ns, le.leaseName());
                            leader = true;
                            trigger(Duration.ZERO);
                        },
                        () -> {
                            LOG.infof("%s lost Lease %s/%s: not writing", identity, ns, le.leaseName());
                            leader = false;
                        },
                        newLeader -> LOG.debugf("Lease %s/%s held by %s", ns, le.leaseName(), newLeader)))
                .build()).build();
        election = elector.start();
        // fabric8's elector ends after losing the Lease: stand for election again unless shutting down
        election.whenComplete((ignored, error) -> {
            if (executor != null && !executor.isShutdown()) {
                leader = false;
                executor.schedule(this::startLeaderElection, le.retryPeriod().toMillis(), TimeUnit.MILLISECONDS);
            }
        });
    }

    public boolean isLeader() {
        return leader;
    }

    private void onKubernetesChange() {
        trigger(config.debounce());
    }

    /** Schedules a pass after {@code delay} unless one is already due sooner (this is the debounce). */
    private void trigger(Duration delay) {
        synchronized (triggerLock) {
            if (executor == null || executor.isShutdown()) return;
            if (pending != null && !pending.isDone() && pending.getDelay(TimeUnit.MILLISECONDS) <= delay.toMillis()) return;
            if (pending != null) pending.cancel(false);
            pending = executor.schedule(this::safePass, delay.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void safePass() {
        if (!sources.started()) {
            startSources();
            return;
        }
        try {
            reconcileNow();
        } catch (RuntimeException e) {
            LOG.errorf(e, "reconcile pass failed");
        }
    }

    /**
     * One full pass over every target, now, on the caller's thread (tests call this directly).
     * Returns one outcome per target that succeeded; nothing when this replica is not the leader.
     */
    public synchronized List<Reconciler.Outcome> reconcileNow() {
        if (!leader || !sourcesReady()) return List.of();
        SourceOutput output = sources.collect();
        report(output.problems());
        var desired = output.toDesired();
        var outcomes = new ArrayList<Reconciler.Outcome>();
        boolean failed = false;
        for (Reconciler r : reconcilers) {
            try {
                var o = r.reconcile(desired);
                outcomes.add(o);
                metrics.records(o.recordsByType());
                metrics.ownerMismatches(o.ownerMismatches());
                if (o.applied()) {
                    metrics.changes("create", o.changes().create().size());
                    metrics.changes("update", o.changes().updateNew().size());
                    metrics.changes("delete", o.changes().delete().size());
                }
            } catch (ProviderException | RuntimeException e) {
                failed = true;
                metrics.error();
                LOG.warnf("[%s] reconcile failed: %s", r.target(), e.getMessage());
            }
        }
        if (failed) {
            consecutiveFailures++;
            long backoff = Math.min(config.interval().toMillis(), 1000L << Math.min(consecutiveFailures - 1, 16));
            trigger(Duration.ofMillis(backoff));
        } else {
            consecutiveFailures = 0;
            metrics.synced(Instant.now().getEpochSecond());
        }
        return outcomes;
    }

    /** Logs each problem and posts a Warning Event once per object and message (not every pass). */
    private void report(List<Problem> problems) {
        var current = new HashMap<String, String>();
        for (Problem p : problems) {
            current.merge(p.resourceKey(), p.message(), (a, b) -> a + "; " + b);
        }
        for (Problem p : problems) {
            String all = current.get(p.resourceKey());
            if (all.equals(reportedProblems.get(p.resourceKey()))) continue;
            LOG.warnf("%s %s/%s: %s: %s", p.kind(), p.namespace(), p.name(), p.reason(), p.message());
            postEvent(p);
        }
        reportedProblems.clear();
        reportedProblems.putAll(current);
    }

    private void postEvent(Problem p) {
        try {
            String now = Instant.now().toString();
            Event event = new EventBuilder()
                    .withNewMetadata().withNamespace(p.namespace())
                    .withName(p.name() + "." + Long.toHexString(System.nanoTime())).endMetadata()
                    .withInvolvedObject(new ObjectReferenceBuilder().withKind(p.kind()).withApiVersion(p.apiVersion())
                            .withNamespace(p.namespace()).withName(p.name()).withUid(p.uid()).build())
                    .withType("Warning").withReason(p.reason()).withMessage(p.message())
                    .withNewSource().withComponent("meshdns-exposure").endSource()
                    .withReportingComponent("meshdns-exposure")
                    .withFirstTimestamp(now).withLastTimestamp(now).withCount(1)
                    .build();
            client.v1().events().inNamespace(p.namespace()).resource(event).create();
        } catch (RuntimeException e) {
            LOG.debugf("cannot post Event for %s/%s: %s", p.namespace(), p.name(), e.getMessage());
        }
    }
}
