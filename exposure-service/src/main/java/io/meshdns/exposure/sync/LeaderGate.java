package io.meshdns.exposure.sync;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.meshdns.exposure.config.ExposureConfig;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Only the holder of the Lease writes. With leader election off (one replica, or no cluster) the
 * gate is always open. fabric8's elector ends after losing the Lease: it stands again unless stopped.
 */
final class LeaderGate implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(LeaderGate.class);

    private final KubernetesClient client;
    private final ExposureConfig.LeaderElection config;
    private final ScheduledExecutorService executor;
    private final Runnable onGained;
    private volatile boolean leader;
    private volatile boolean closed;
    private CompletableFuture<?> election;

    private final boolean enabled;

    /** @param enabled false without a cluster (manifests): the gate is always open */
    LeaderGate(KubernetesClient client, ExposureConfig.LeaderElection config, boolean enabled, ScheduledExecutorService executor,
               Runnable onGained) {
        this.client = client;
        this.config = config;
        this.enabled = enabled && config.enabled();
        this.executor = executor;
        this.onGained = onGained;
        this.leader = !this.enabled;
    }

    void start() {
        if (enabled) stand();
    }

    boolean isLeader() {
        return leader;
    }

    private void stand() {
        String ns = config.leaseNamespace().or(() -> Optional.ofNullable(System.getenv("POD_NAMESPACE"))).orElse("default");
        String identity = Optional.ofNullable(System.getenv("HOSTNAME")).orElse("exposure") + "-" + UUID.randomUUID().toString().substring(0, 8);
        LeaderElector elector = client.leaderElector().withConfig(new LeaderElectionConfigBuilder()
                .withName("meshdns-exposure")
                .withLock(new LeaseLock(ns, config.leaseName(), identity))
                .withLeaseDuration(config.leaseDuration())
                .withRenewDeadline(config.renewDeadline())
                .withRetryPeriod(config.retryPeriod())
                .withReleaseOnCancel(true)
                .withLeaderCallbacks(new LeaderCallbacks(
                        () -> {
                            LOG.infof("%s leads Lease %s/%s: writing records", identity, ns, config.leaseName());
                            leader = true;
                            onGained.run();
                        },
                        () -> {
                            LOG.infof("%s lost Lease %s/%s: not writing", identity, ns, config.leaseName());
                            leader = false;
                        },
                        newLeader -> LOG.debugf("Lease %s/%s held by %s", ns, config.leaseName(), newLeader)))
                .build()).build();
        election = elector.start();
        election.whenComplete((ignored, error) -> {
            if (!closed && !executor.isShutdown()) {
                leader = false;
                executor.schedule(this::stand, config.retryPeriod().toMillis(), TimeUnit.MILLISECONDS);
            }
        });
    }

    @Override
    public void close() {
        closed = true;
        if (election != null) election.cancel(true);
    }
}
