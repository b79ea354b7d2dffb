package io.meshdns.discovery.vip;

import io.fabric8.kubernetes.client.KubernetesClient;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Where the table is stored ({@link VipStore}: the ConfigMap with a local cluster, else the file, else nowhere):
 * read at start and on taking the Lease, written back on the allocator's own thread, coalesced, and retried
 * until it lands. A write that finds another replica's allocations adopts them ({@link VipAllocations#adopt}).
 */
final class VipPersistence {
    private static final Logger LOG = Logger.getLogger(VipPersistence.class);

    private final VipStore store;
    private final VipAllocations allocations;
    private final ScheduledExecutorService writer;
    private final AtomicBoolean saveQueued = new AtomicBoolean();

    VipPersistence(VipStore store, VipAllocations allocations, ScheduledExecutorService writer) {
        this.store = store;
        this.allocations = allocations;
        this.writer = writer;
    }

    /** The ConfigMap with a local cluster, else {@code meshdns.discovery.vip-file}, else nowhere. */
    static VipStore choose(VipConfig config, KubernetesClient localClient) {
        if (localClient != null) return new ConfigMapVipStore(localClient, namespace(config, localClient), config.vipConfigmap());
        return config.vipFile().<VipStore>map(FileVipStore::new).orElseGet(() -> {
            LOG.warn("no local cluster and no meshdns.discovery.vip-file: the VIP table is not persisted");
            return VipStore.NONE;
        });
    }

    /** The namespace of the ConfigMap and the Lease: the key, else the pod's own, else the client's. */
    static String namespace(VipConfig config, KubernetesClient client) {
        if (config.namespace().isPresent()) return config.namespace().get();
        Path sa = Path.of("/var/run/secrets/kubernetes.io/serviceaccount/namespace");
        try {
            if (Files.isReadable(sa)) return Files.readString(sa).trim();
        } catch (IOException ignored) {
            // fall through to the client's namespace
        }
        String ns = client.getNamespace();
        return ns == null || ns.isBlank() ? "default" : ns;
    }

    VipStore store() {
        return store;
    }

    String describe() {
        return store.describe();
    }

    /** Restores the stored table into the allocations; three tries, then starts afresh. */
    void restore(List<String> ranges) {
        for (int attempt = 1; ; attempt++) {
            try {
                Map<String, List<String>> persisted = store.load();
                allocations.restore(persisted);
                LOG.infof("ServiceEntry VIPs from %s, persisted in %s: %d hosts restored", ranges, store.describe(), persisted.size());
                return;
            } catch (IOException | RuntimeException e) {
                if (attempt < 3) {
                    LOG.warnf("cannot load the VIP table from %s (%s): retrying", store.describe(), e.getMessage());
                    sleepQuietly(1000);
                    continue;
                }
                // Not fatal: the hash-based first choice gives the same VIPs to the same hosts in most cases.
                LOG.warnf("cannot load the VIP table from %s (%s): allocating afresh", store.describe(), e.getMessage());
                return;
            }
        }
    }

    /** The stored table now, or null (logged) when it cannot be read. */
    Map<String, List<String>> loadOrNull() {
        try {
            return store.load();
        } catch (IOException | RuntimeException e) {
            LOG.warnf("cannot read %s on taking the Lease (%s): continuing from the followed table", store.describe(), e.getMessage());
            return null;
        }
    }

    /** Coalesces writes: one pending save writes the latest table. Retried every 5 s on failure. */
    void scheduleSave() {
        if (saveQueued.compareAndSet(false, true)) writer.schedule(this::save, 100, TimeUnit.MILLISECONDS);
    }

    private void save() {
        saveQueued.set(false);
        Map<String, List<String>> snapshot = allocations.allocations();
        try {
            Map<String, List<String>> stored = store.saveMerging(snapshot);
            if (!stored.equals(snapshot)) adopt(stored);
        } catch (IOException | RuntimeException e) {
            LOG.warnf("cannot persist the VIP table to %s (%s): retrying in 5s", store.describe(), e.getMessage());
            if (saveQueued.compareAndSet(false, true)) writer.schedule(this::save, 5, TimeUnit.SECONDS);
        }
    }

    private void adopt(Map<String, List<String>> stored) {
        List<String> moved = allocations.adopt(stored);
        LOG.infof("VIP table merged with another replica's writes in %s", store.describe());
        if (!moved.isEmpty()) {
            LOG.warnf("VIPs moved to keep one host per address across replicas: %s", moved);
            scheduleSave();
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
