package io.meshdns.kit;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Stands for a Kubernetes Lease (fabric8's {@code LeaderElector} with a {@code LeaseLock}) for as long as the process
 * runs: fabric8's elector ends after losing the Lease, so this stands again a retry period later, until closed. A
 * graceful close releases the Lease, so the next replica takes over at once; a crashed holder's Lease expires after
 * the lease duration. The {@link Listener} runs on fabric8's threads.
 *
 * <p>Needs the Kubernetes client on the class path (an optional dependency of this kit: only the services that
 * stand for a Lease carry it).
 */
public final class LeaseElection implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(LeaseElection.class);

    /**
     * What to stand for.
     *
     * @param electionName fabric8's name for the election (its logs)
     * @param leading      what this replica does while it leads, for the log line ("writing records")
     * @param following    what it does once it no longer leads
     */
    public record Lease(String electionName, String namespace, String name, Duration leaseDuration, Duration renewDeadline,
                        Duration retryPeriod, String leading, String following) {
        public String describe() {
            return "Lease " + namespace + "/" + name;
        }
    }

    /** Told when this replica gains or loses the Lease, and who holds it. */
    public interface Listener {
        void gained();

        void lost();

        default void leaderIs(String identity) {
        }
    }

    private final KubernetesClient client;
    private final Lease lease;
    private final Supplier<String> identities;
    private final ScheduledExecutorService executor;
    private final Listener listener;
    private volatile boolean leading;
    private volatile boolean closed;
    private volatile CompletableFuture<?> election;

    /**
     * @param identities the identity to stand with, asked each time this stands (a supplier of one value keeps one
     *                   identity for the process)
     * @param executor   where standing again is scheduled; once it is shut down this stands no more
     */
    public LeaseElection(KubernetesClient client, Lease lease, Supplier<String> identities, ScheduledExecutorService executor,
                         Listener listener) {
        this.client = client;
        this.lease = lease;
        this.identities = identities;
        this.executor = executor;
        this.listener = listener;
    }

    /** The pod's name ({@code HOSTNAME}) or {@code fallback}, with a random suffix: unique across restarts. */
    public static String newIdentity(String fallback) {
        return Optional.ofNullable(System.getenv("HOSTNAME")).filter(h -> !h.isBlank()).orElse(fallback)
                + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    public void start() {
        stand();
    }

    /** Whether this replica holds the Lease now. */
    public boolean leading() {
        return leading;
    }

    public String describe() {
        return lease.describe();
    }

    private void stand() {
        if (closed) return;
        String me = identities.get();
        var elector = client.leaderElector().withConfig(new LeaderElectionConfigBuilder()
                .withName(lease.electionName())
                .withLock(new LeaseLock(lease.namespace(), lease.name(), me))
                .withLeaseDuration(lease.leaseDuration())
                .withRenewDeadline(lease.renewDeadline())
                .withRetryPeriod(lease.retryPeriod())
                // A graceful stop hands over at once; a crashed leader's Lease expires after lease-duration.
                .withReleaseOnCancel(true)
                .withLeaderCallbacks(new LeaderCallbacks(
                        () -> {
                            LOG.infof("%s leads %s: %s", me, describe(), lease.leading());
                            leading = true;
                            listener.gained();
                        },
                        () -> {
                            LOG.infof("%s no longer leads %s: %s", me, describe(), lease.following());
                            leading = false;
                            listener.lost();
                        },
                        newLeader -> {
                            LOG.debugf("%s held by %s", describe(), newLeader);
                            listener.leaderIs(newLeader);
                        }))
                .build()).build();
        CompletableFuture<?> running = elector.start();
        election = running;
        running.whenComplete((ignored, error) -> {
            if (closed || executor.isShutdown()) return;
            leading = false;
            if (error != null && !(error instanceof CancellationException)) {
                LOG.warnf("leader election on %s ended (%s): standing again", describe(), error.getMessage());
            }
            try {
                executor.schedule(this::stand, lease.retryPeriod().toMillis(), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException shuttingDown) {
                // the owner is closing
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
