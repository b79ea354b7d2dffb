package io.meshdns.discovery.vip;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Who leads: stands for the VIP allocator's Lease (fabric8's {@code LeaderElector} with a {@code LeaseLock}) for as long as
 * the process runs: fabric8's elector ends after losing the Lease, so it stands again. The callbacks run on
 * fabric8's threads.
 */
final class VipLeadership implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(VipLeadership.class);

    private final KubernetesClient client;
    private final String namespace;
    private final VipConfig.LeaderElection config;
    private final String identity;
    private final ScheduledExecutorService executor;
    private final Runnable onGained;
    private final Runnable onLost;
    private final CountDownLatch firstOutcome = new CountDownLatch(1);
    private volatile boolean closed;
    private volatile CompletableFuture<?> election;

    VipLeadership(KubernetesClient client, String namespace, VipConfig.LeaderElection config, ScheduledExecutorService executor,
                  Runnable onGained, Runnable onLost) {
        validate(config);
        this.client = client;
        this.namespace = namespace;
        this.config = config;
        this.executor = executor;
        this.onGained = onGained;
        this.onLost = onLost;
        this.identity = Optional.ofNullable(System.getenv("HOSTNAME")).filter(h -> !h.isBlank()).orElse("discovery-service")
                + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Fails with one line naming the key for durations the elector could not work with. */
    static void validate(VipConfig.LeaderElection c) {
        String prefix = "meshdns.discovery.leader-election.";
        if (c.leaseName().isBlank()) throw new IllegalArgumentException(prefix + "lease-name must not be empty");
        for (var d : new Object[][]{{"lease-duration", c.leaseDuration()}, {"renew-deadline", c.renewDeadline()}, {"retry-period", c.retryPeriod()}}) {
            if (((Duration) d[1]).isNegative() || ((Duration) d[1]).isZero()) {
                throw new IllegalArgumentException(prefix + d[0] + " must be positive, not " + d[1]);
            }
        }
        if (c.renewDeadline().compareTo(c.leaseDuration()) >= 0) {
            throw new IllegalArgumentException(prefix + "renew-deadline (" + c.renewDeadline() + ") must be below "
                    + prefix + "lease-duration (" + c.leaseDuration() + ")");
        }
        if (c.retryPeriod().compareTo(c.renewDeadline()) >= 0) {
            throw new IllegalArgumentException(prefix + "retry-period (" + c.retryPeriod() + ") must be below "
                    + prefix + "renew-deadline (" + c.renewDeadline() + ")");
        }
    }

    String identity() {
        return identity;
    }

    String describe() {
        return "Lease " + namespace + "/" + config.leaseName();
    }

    /**
     * Stands for the Lease and waits (at most a lease duration and a retry period) until this replica either leads
     * or has seen another leader, so the first catalog version is built in the right role.
     */
    void standAndAwaitRole() {
        stand();
        Duration wait = config.leaseDuration().plus(config.retryPeriod());
        try {
            if (!firstOutcome.await(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warnf("no leader of %s seen within %s: following the ConfigMap meanwhile", describe(), wait);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void stand() {
        if (closed) return;
        var elector = client.leaderElector().withConfig(new LeaderElectionConfigBuilder()
                .withName("meshdns-discovery-vips")
                .withLock(new LeaseLock(namespace, config.leaseName(), identity))
                .withLeaseDuration(config.leaseDuration())
                .withRenewDeadline(config.renewDeadline())
                .withRetryPeriod(config.retryPeriod())
                // A graceful stop hands over at once; a crashed leader's Lease expires after lease-duration.
                .withReleaseOnCancel(true)
                .withLeaderCallbacks(new LeaderCallbacks(
                        () -> {
                            LOG.infof("%s leads %s: allocating ServiceEntry VIPs", identity, describe());
                            onGained.run();
                            firstOutcome.countDown();
                        },
                        () -> {
                            LOG.infof("%s no longer leads %s: following the VIP table", identity, describe());
                            onLost.run();
                        },
                        newLeader -> {
                            LOG.debugf("%s held by %s", describe(), newLeader);
                            if (!identity.equals(newLeader)) firstOutcome.countDown();
                        }))
                .build()).build();
        CompletableFuture<?> running = elector.start();
        election = running;
        running.whenComplete((ignored, error) -> {
            if (closed || executor.isShutdown()) return;
            if (error != null && !(error instanceof java.util.concurrent.CancellationException)) {
                LOG.warnf("leader election on %s ended (%s): standing again", describe(), error.getMessage());
            }
            try {
                executor.schedule(this::stand, config.retryPeriod().toMillis(), TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException shuttingDown) {
                // the allocator is closing
            }
        });
    }

    /** Stops standing and releases the Lease if held (a graceful stop: the next replica takes over at once). */
    @Override
    public void close() {
        closed = true;
        CompletableFuture<?> running = election;
        if (running != null) running.cancel(true);
    }
}
