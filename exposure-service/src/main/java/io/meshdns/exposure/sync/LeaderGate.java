package io.meshdns.exposure.sync;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshdns.exposure.config.ExposureConfig;
import io.meshdns.kit.LeaseElection;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Only the holder of the Lease writes ({@link LeaseElection}, which stands again after losing it). With leader
 * election off (one replica, or no cluster) the gate is always open.
 */
final class LeaderGate implements AutoCloseable {

    private final boolean enabled;
    private final LeaseElection election;

    /** @param enabled false without a cluster (manifests): the gate is always open */
    LeaderGate(KubernetesClient client, ExposureConfig.LeaderElection config, boolean enabled, ScheduledExecutorService executor,
               Runnable onGained) {
        this.enabled = enabled && config.enabled();
        String ns = config.leaseNamespace().or(() -> Optional.ofNullable(System.getenv("POD_NAMESPACE"))).orElse("default");
        LeaseElection.Lease lease = new LeaseElection.Lease("meshdns-exposure", ns, config.leaseName(), config.leaseDuration(),
                config.renewDeadline(), config.retryPeriod(), "writing records", "not writing");
        // A fresh identity each time it stands, as this gate always did.
        this.election = new LeaseElection(client, lease, () -> LeaseElection.newIdentity("exposure"), executor, new LeaseElection.Listener() {
            @Override
            public void gained() {
                onGained.run();
            }

            @Override
            public void lost() {
                // isLeader() reads the election
            }
        });
    }

    void start() {
        if (enabled) election.start();
    }

    boolean isLeader() {
        return !enabled || election.leading();
    }

    @Override
    public void close() {
        election.close();
    }
}
