package io.meshdns.discovery.vip;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshdns.kit.LeaseElection;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Who leads: this replica stands for the VIP allocator's Lease ({@link LeaseElection}) for as long as the process
 * runs, with one identity; the leader allocates and writes the table, the others follow it. The callbacks run on
 * fabric8's threads.
 */
final class VipLeadership implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(VipLeadership.class);

    private final VipConfig.LeaderElection config;
    private final String identity = LeaseElection.newIdentity("discovery-service");
    private final CountDownLatch firstOutcome = new CountDownLatch(1);
    private final LeaseElection election;

    VipLeadership(KubernetesClient client, String namespace, VipConfig.LeaderElection config, ScheduledExecutorService executor,
                  Runnable onGained, Runnable onLost) {
        validate(config);
        this.config = config;
        LeaseElection.Lease lease = new LeaseElection.Lease("meshdns-discovery-vips", namespace, config.leaseName(),
                config.leaseDuration(), config.renewDeadline(), config.retryPeriod(), "allocating ServiceEntry VIPs",
                "following the VIP table");
        this.election = new LeaseElection(client, lease, () -> identity, executor, new LeaseElection.Listener() {
            @Override
            public void gained() {
                onGained.run();
                firstOutcome.countDown();
            }

            @Override
            public void lost() {
                onLost.run();
            }

            @Override
            public void leaderIs(String leader) {
                if (!identity.equals(leader)) firstOutcome.countDown();
            }
        });
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

    /**
     * Stands for the Lease and waits (at most a lease duration and a retry period) until this replica either leads
     * or has seen another leader, so the first catalog version is built in the right role.
     */
    void standAndAwaitRole() {
        election.start();
        Duration wait = config.leaseDuration().plus(config.retryPeriod());
        try {
            if (!firstOutcome.await(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warnf("no leader of %s seen within %s: following the ConfigMap meanwhile", election.describe(), wait);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops standing and releases the Lease if held (a graceful stop: the next replica takes over at once). */
    @Override
    public void close() {
        election.close();
    }
}
