package io.meshdns.discovery.cluster;

import io.meshdns.model.Kind;

import io.meshdns.discovery.rejection.RejectionReporter;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.meshdns.discovery.catalog.CatalogAggregator;
import io.meshdns.discovery.config.DiscoveryConfig;
import io.meshdns.discovery.kinds.DiscoveryKind;
import io.meshdns.discovery.kinds.DiscoveryKinds;
import io.meshdns.discovery.manifest.ManifestFile;
import io.meshdns.discovery.manifest.ManifestSource;
import io.meshdns.discovery.metrics.DiscoveryMetrics;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Owns the sources: the local cluster, remote clusters (kubeconfig directory and Istio remote
 * Secrets, both followed at run time) and the manifest directories. It only starts and stops
 * them; what they find goes straight to the {@link CatalogAggregator}.
 */
@ApplicationScoped
public class ClusterManager {
    private static final Logger LOG = Logger.getLogger(ClusterManager.class);
    public static final String REMOTE_SECRET_LABEL = "istio/multiCluster";

    /** A remote cluster as configured: where it came from and its kubeconfig text. */
    record RemoteSpec(String origin, String kubeconfig) {
    }

    private record Remote(RemoteSpec spec, ClusterWatcher watcher) {
    }

    @Inject
    DiscoveryConfig config;
    @Inject
    CatalogAggregator aggregator;
    @Inject
    DiscoveryMetrics metrics;
    @Inject
    @Named("discovery-scheduler")
    ScheduledExecutorService scheduler;
    @Inject
    Instance<KubernetesClient> localClient;

    private RejectionReporter rejections;
    private ClusterWatcher localWatcher;
    private ManifestSource manifests;
    private SharedIndexInformer<Secret> secretInformer;
    private final Map<String, Remote> remotes = new TreeMap<>();
    private volatile Map<String, RemoteSpec> fromDir = Map.of();
    private final Map<String, Map<String, String>> fromSecrets = new ConcurrentHashMap<>();

    void onStart(@Observes StartupEvent ev) {
        rejections = new RejectionReporter(config.recordEvents(), Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "meshdns-k8s-events");
            t.setDaemon(true);
            return t;
        }));
        ClusterWatcher.Options options = watcherOptions();
        if (config.enabledLocalCluster()) {
            localWatcher = new ClusterWatcher(config.clusterName(), true, localClient.get(), false, aggregator, metrics, rejections, options);
            aggregator.expectInitialSync(localWatcher.sourceId());
            localWatcher.start();
            if (config.watchRemoteSecrets()) watchRemoteSecrets(localClient.get());
        }
        List<Path> dirs = config.manifestDirs().orElse(List.of());
        if (!dirs.isEmpty()) {
            manifests = new ManifestSource(dirs, config.clusterName(), config.clusterName(), aggregator, metrics, rejections,
                    this::watchedThroughApi, new ManifestFile.Limits(config.manifest().maxFileSizeBytes(),
                    config.manifest().maxDepth()));
            aggregator.expectInitialSync(ManifestSource.SOURCE_ID);
            scheduler.execute(manifests::poll);
            long poll = config.manifestPollInterval().toMillis();
            scheduler.scheduleWithFixedDelay(manifests::poll, poll, poll, TimeUnit.MILLISECONDS);
        }
        if (config.remoteKubeconfigDir().isPresent()) {
            fromDir = scanKubeconfigDir(config.remoteKubeconfigDir().get());
            syncRemotes(true);
            long rescan = config.remoteKubeconfigRescan().toMillis();
            scheduler.scheduleWithFixedDelay(this::rescanDir, rescan, rescan, TimeUnit.MILLISECONDS);
        }
        scheduler.scheduleWithFixedDelay(this::tick, 1000, 1000, TimeUnit.MILLISECONDS);
        long reconcile = config.reconcileInterval().toMillis();
        scheduler.scheduleWithFixedDelay(this::reconcile, reconcile, reconcile, TimeUnit.MILLISECONDS);
        scheduler.schedule(() -> {
            if (!aggregator.isReady()) {
                LOG.warnf("initial sync of %s not done after %s (meshdns.discovery.initial-sync-timeout): serving what is known",
                        aggregator.awaitingInitialSync(), config.initialSyncTimeout());
                aggregator.markReady();
            }
        }, config.initialSyncTimeout().toMillis(), TimeUnit.MILLISECONDS);
        if (!config.enabledLocalCluster() && dirs.isEmpty() && config.remoteKubeconfigDir().isEmpty()) {
            LOG.warn("no source configured: set meshdns.discovery.manifest-dirs, meshdns.discovery.remote-kubeconfig-dir "
                    + "or meshdns.discovery.enabled-local-cluster=true");
            aggregator.markReady();
        }
    }

    /** The file source; null when no manifest directory is configured. */
    public ManifestSource manifests() {
        return manifests;
    }

    void onStop(@Observes ShutdownEvent ev) {
        if (secretInformer != null) secretInformer.stop();
        synchronized (remotes) {
            remotes.values().forEach(r -> r.watcher().close());
            remotes.clear();
        }
        if (localWatcher != null) localWatcher.close();
    }

    /** True when the local client may be used (TokenReview). */
    public Optional<KubernetesClient> localClient() {
        return config.enabledLocalCluster() ? Optional.of(localClient.get()) : Optional.empty();
    }

    /** The sync state of every cluster watched through its API, by name (manifest clusters have none). */
    public Map<String, ClusterWatcher.SyncState> syncStates() {
        Map<String, ClusterWatcher.SyncState> out = new TreeMap<>();
        if (localWatcher != null) out.put(localWatcher.cluster(), localWatcher.syncState());
        synchronized (remotes) {
            remotes.forEach((name, r) -> out.put(name, r.watcher().syncState()));
        }
        return out;
    }

    public List<String> remoteClusterNames() {
        synchronized (remotes) {
            return List.copyOf(remotes.keySet());
        }
    }

    private boolean watchedThroughApi(String cluster) {
        if (config.enabledLocalCluster() && cluster.equals(config.clusterName())) return true;
        synchronized (remotes) {
            return remotes.containsKey(cluster);
        }
    }

    private ClusterWatcher.Options watcherOptions() {
        java.util.Set<Kind> optional = java.util.EnumSet.noneOf(Kind.class);
        for (DiscoveryKind k : DiscoveryKinds.ALL) {
            if (k.optional() && k.switchedBy().isOn().test(config)) optional.add(k.kind());
        }
        return new ClusterWatcher.Options(optional, config.staleAfter(), config.reconcileInterval(), config.crdRetryInterval());
    }

    private void tick() {
        try {
            if (localWatcher != null) localWatcher.tick();
            synchronized (remotes) {
                remotes.values().forEach(r -> r.watcher().tick());
            }
        } catch (RuntimeException e) {
            LOG.errorf(e, "cluster tick failed");
        }
    }

    private void reconcile() {
        if (localWatcher != null) localWatcher.reconcile();
        synchronized (remotes) {
            remotes.values().forEach(r -> r.watcher().reconcile());
        }
    }

    private void rescanDir() {
        try {
            Map<String, RemoteSpec> scanned = scanKubeconfigDir(config.remoteKubeconfigDir().get());
            if (!scanned.equals(fromDir)) {
                fromDir = scanned;
                syncRemotes(false);
            }
        } catch (RuntimeException e) {
            LOG.errorf(e, "rescan of meshdns.discovery.remote-kubeconfig-dir failed");
        }
    }

    static Map<String, RemoteSpec> scanKubeconfigDir(Path dir) {
        Map<String, RemoteSpec> out = new TreeMap<>();
        if (!Files.isDirectory(dir)) return out;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                String file = f.getFileName().toString();
                // Mounted Secrets keep their real files under "..data"; the visible names are links.
                if (file.startsWith(".") || !Files.isRegularFile(f)) continue;
                int dot = file.indexOf('.');
                String name = dot > 0 ? file.substring(0, dot) : file;
                out.put(name, new RemoteSpec("file " + f, Files.readString(f, StandardCharsets.UTF_8)));
            }
        } catch (IOException e) {
            LOG.warnf("cannot read meshdns.discovery.remote-kubeconfig-dir %s: %s", dir, e.getMessage());
        }
        return out;
    }

    private void watchRemoteSecrets(KubernetesClient client) {
        var secrets = config.remoteSecretsNamespace().isPresent()
                ? client.secrets().inNamespace(config.remoteSecretsNamespace().get()).withLabel(REMOTE_SECRET_LABEL, "true")
                : client.secrets().inAnyNamespace().withLabel(REMOTE_SECRET_LABEL, "true");
        secretInformer = secrets.runnableInformer(0);
        secretInformer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Secret s) {
                secretChanged(s, false);
            }

            @Override
            public void onUpdate(Secret o, Secret s) {
                secretChanged(s, false);
            }

            @Override
            public void onDelete(Secret s, boolean unknown) {
                secretChanged(s, true);
            }
        });
        secretInformer.exceptionHandler((started, t) -> true);
        secretInformer.start();
    }

    private void secretChanged(Secret s, boolean deleted) {
        String key = s.getMetadata().getNamespace() + "/" + s.getMetadata().getName();
        if (deleted) {
            fromSecrets.remove(key);
        } else {
            Map<String, String> clusters = new TreeMap<>();
            if (s.getData() != null) {
                s.getData().forEach((k, v) -> {
                    try {
                        clusters.put(k, new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8));
                    } catch (IllegalArgumentException e) {
                        LOG.warnf("remote secret %s: key %s is not base64; skipped", key, k);
                    }
                });
            }
            fromSecrets.put(key, clusters);
        }
        scheduler.execute(() -> syncRemotes(false));
    }

    /** Starts, restarts and stops remote watchers so that they match the configured remotes. */
    private void syncRemotes(boolean atStart) {
        Map<String, RemoteSpec> desired = new HashMap<>();
        fromSecrets.forEach((secret, clusters) -> clusters.forEach((name, kc) -> desired.put(name, new RemoteSpec("secret " + secret, kc))));
        fromDir.forEach((name, spec) -> {
            RemoteSpec prev = desired.put(name, spec);
            if (prev != null) LOG.warnf("remote cluster %s is defined by %s and %s; using the file", name, prev.origin(), spec.origin());
        });
        if (config.enabledLocalCluster() || config.manifestDirs().isPresent()) {
            if (desired.remove(config.clusterName()) != null) {
                LOG.warnf("remote cluster %s has the local cluster's name (meshdns.discovery.cluster-name); ignored", config.clusterName());
            }
        }
        synchronized (remotes) {
            for (var it = remotes.entrySet().iterator(); it.hasNext(); ) {
                var e = it.next();
                RemoteSpec want = desired.get(e.getKey());
                if (want == null) {
                    LOG.infof("remote cluster %s removed (%s)", e.getKey(), e.getValue().spec().origin());
                    e.getValue().watcher().close();
                    aggregator.removeCluster(e.getKey());
                    it.remove();
                } else if (!want.kubeconfig().equals(e.getValue().spec().kubeconfig())) {
                    LOG.infof("remote cluster %s: kubeconfig changed, reconnecting", e.getKey());
                    e.getValue().watcher().close();
                    it.remove();
                }
            }
            for (var e : new TreeMap<>(desired).entrySet()) {
                if (remotes.containsKey(e.getKey())) continue;
                if (!e.getKey().matches("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")) {
                    LOG.errorf("remote cluster name '%s' (%s) is not a DNS label; skipped", e.getKey(), e.getValue().origin());
                    continue;
                }
                KubernetesClient client;
                try {
                    client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(e.getValue().kubeconfig())).build();
                } catch (RuntimeException ex) {
                    LOG.errorf("remote cluster %s (%s): unusable kubeconfig: %s", e.getKey(), e.getValue().origin(), ex.getMessage());
                    continue;
                }
                ClusterWatcher w = new ClusterWatcher(e.getKey(), false, client, true, aggregator, metrics, rejections, watcherOptions());
                if (atStart) aggregator.expectInitialSync(w.sourceId());
                w.start();
                remotes.put(e.getKey(), new Remote(e.getValue(), w));
                LOG.infof("remote cluster %s added (%s, %s)", e.getKey(), e.getValue().origin(), client.getMasterUrl());
            }
        }
    }

}
