package io.meshdns.discovery.manifest;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.meshdns.discovery.catalog.CatalogAggregator;
import io.meshdns.discovery.cluster.RejectionReporter;
import io.meshdns.discovery.metrics.DiscoveryMetrics;
import io.meshdns.discovery.translate.Translation;
import io.meshdns.discovery.translate.Translator;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.ClusterStatus;
import io.meshdns.model.Kind;
import io.meshdns.model.ObjectRef;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The file source: Kubernetes YAML/JSON manifests in directories, several documents per file, the
 * same kinds and the same translation as the informers. {@link #poll()} rereads everything when
 * any file's name, size or mtime changed, and hands the catalog only what differs from the last load.
 *
 * <p>A record's cluster is the object's {@code meshdns.io/cluster} annotation, else the first
 * subdirectory under the manifest dir ({@code dir/east/x.yaml} is cluster {@code east}), else the
 * default cluster name. A file that fails to parse keeps its previous objects until it is fixed.
 */
public final class ManifestSource {
    public static final String CLUSTER_ANNOTATION = "meshdns.io/cluster";
    public static final String SOURCE_ID = "manifests";
    private static final Logger LOG = Logger.getLogger(ManifestSource.class);
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private record FileStamp(long size, long mtime) {
    }

    private final List<Path> dirs;
    private final String defaultCluster;
    private final String localCluster;
    private final CatalogAggregator aggregator;
    private final DiscoveryMetrics metrics;
    private final RejectionReporter rejections;
    private final Predicate<String> clusterWatchedElsewhere;

    private Map<Path, FileStamp> lastStamps = Map.of();
    private final Map<Path, List<HasMetadata>> lastGoodObjects = new HashMap<>();
    private Map<ObjectRef, CatalogEntry> published = Map.of();
    private Set<String> publishedClusters = Set.of();
    private boolean firstLoadDone;

    public ManifestSource(List<Path> dirs, String defaultCluster, String localCluster, CatalogAggregator aggregator,
                          DiscoveryMetrics metrics, RejectionReporter rejections, Predicate<String> clusterWatchedElsewhere) {
        this.dirs = List.copyOf(dirs);
        this.defaultCluster = defaultCluster;
        this.localCluster = localCluster;
        this.aggregator = aggregator;
        this.metrics = metrics;
        this.rejections = rejections;
        this.clusterWatchedElsewhere = clusterWatchedElsewhere;
    }

    /** Rereads the manifests if anything changed. Returns true when it reloaded. Never throws. */
    public synchronized boolean poll() {
        try {
            Map<Path, FileStamp> stamps = scan();
            if (firstLoadDone && stamps.equals(lastStamps)) return false;
            load(stamps);
            lastStamps = stamps;
            return true;
        } catch (RuntimeException | IOException e) {
            LOG.errorf(e, "manifest source: reload failed, keeping the previous state");
            return false;
        } finally {
            if (!firstLoadDone) {
                firstLoadDone = true;
                aggregator.initialSyncDone(SOURCE_ID);
            }
        }
    }

    private Map<Path, FileStamp> scan() throws IOException {
        Map<Path, FileStamp> out = new TreeMap<>();
        for (Path dir : dirs) {
            if (!Files.isDirectory(dir)) continue;
            try (Stream<Path> walk = Files.walk(dir)) {
                for (Path p : (Iterable<Path>) walk::iterator) {
                    if (!isManifest(dir, p)) continue;
                    BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
                    out.put(p, new FileStamp(a.size(), a.lastModifiedTime().toMillis()));
                }
            }
        }
        return out;
    }

    private static boolean isManifest(Path root, Path p) {
        for (Path part : root.relativize(p)) {
            // ConfigMap volumes keep the real files under "..data": skip hidden names, read the links.
            if (part.toString().startsWith(".")) return false;
        }
        String n = p.getFileName().toString();
        return (n.endsWith(".yaml") || n.endsWith(".yml") || n.endsWith(".json")) && Files.isRegularFile(p);
    }

    private void load(Map<Path, FileStamp> stamps) {
        Map<ObjectRef, CatalogEntry> next = new HashMap<>();
        Set<String> clusters = new HashSet<>();
        lastGoodObjects.keySet().retainAll(stamps.keySet());
        for (Path file : stamps.keySet()) {
            List<HasMetadata> objects;
            try {
                objects = parse(Files.readString(file));
                lastGoodObjects.put(file, objects);
            } catch (IOException | RuntimeException e) {
                objects = lastGoodObjects.getOrDefault(file, List.of());
                LOG.warnf("manifest %s: cannot parse (%s); keeping its %d previous objects", file, e.getMessage(), objects.size());
            }
            String dirCluster = clusterFromPath(file);
            for (HasMetadata obj : objects) {
                String cluster = clusterOf(obj, dirCluster);
                if (!cluster.matches("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")) {
                    LOG.warnf("manifest %s: %s %s names cluster '%s', which is not a DNS label; skipped", file, obj.getKind(),
                            obj.getMetadata() == null ? "?" : obj.getMetadata().getName(), cluster);
                    continue;
                }
                if (clusterWatchedElsewhere.test(cluster)) {
                    LOG.warnf("manifest %s: cluster '%s' is watched through its API; its manifests are ignored", file, cluster);
                    continue;
                }
                Kind kind = Translator.kindOf(obj);
                if (kind == null) continue; // Deployments and friends: not ours, silently.
                metrics.event(cluster, kind);
                Translation t = Translator.translate(cluster, obj);
                if (t instanceof Translation.Accepted a) {
                    if (next.put(a.entry().ref(), a.entry()) != null) {
                        LOG.warnf("manifest %s: %s is defined twice; the last one wins", file, a.entry().ref());
                    }
                    clusters.add(cluster);
                } else if (t instanceof Translation.Rejected r) {
                    metrics.rejected(cluster, kind);
                    rejections.report(null, obj, r);
                    if (r.ref() != null && published.containsKey(r.ref())) next.put(r.ref(), published.get(r.ref()));
                }
            }
        }
        Set<String> changedClusters = new HashSet<>();
        for (Map.Entry<ObjectRef, CatalogEntry> e : next.entrySet()) {
            if (!e.getValue().equals(published.get(e.getKey()))) {
                aggregator.upsert(e.getValue());
                changedClusters.add(e.getKey().cluster());
            }
        }
        for (ObjectRef ref : published.keySet()) {
            if (!next.containsKey(ref)) {
                aggregator.delete(ref);
                changedClusters.add(ref.cluster());
            }
        }
        // lastSync moves only for clusters whose files changed something: no status churn for the rest.
        long now = System.currentTimeMillis();
        for (String cluster : clusters) {
            if (changedClusters.contains(cluster) || !publishedClusters.contains(cluster)) {
                aggregator.updateCluster(new ClusterStatus(cluster, cluster.equals(localCluster), false, now, List.of()));
            }
        }
        for (String gone : publishedClusters) {
            if (!clusters.contains(gone)) aggregator.removeCluster(gone);
        }
        LOG.infof("manifest source: %d objects in %d clusters from %d files", next.size(), clusters.size(), stamps.size());
        published = next;
        publishedClusters = clusters;
    }

    /** Splits a multi-document YAML (or a JSON object) into objects; "kind: List" is flattened. */
    static List<HasMetadata> parse(String content) {
        List<HasMetadata> out = new ArrayList<>();
        for (String doc : content.split("(?m)^---\\s*$")) {
            if (doc.lines().allMatch(l -> l.isBlank() || l.stripLeading().startsWith("#"))) continue;
            Object o = SERIALIZATION.unmarshal(doc);
            if (o instanceof KubernetesList list) {
                out.addAll(list.getItems());
            } else if (o instanceof HasMetadata h) {
                out.add(h);
            } else if (o instanceof List<?> l) {
                for (Object x : l) if (x instanceof HasMetadata h) out.add(h);
            }
        }
        return out;
    }

    private String clusterFromPath(Path file) {
        for (Path dir : dirs) {
            if (file.startsWith(dir)) {
                Path rel = dir.relativize(file);
                return rel.getNameCount() > 1 ? rel.getName(0).toString() : defaultCluster;
            }
        }
        return defaultCluster;
    }

    private static String clusterOf(HasMetadata obj, String fallback) {
        if (obj.getMetadata() != null && obj.getMetadata().getAnnotations() != null) {
            String c = obj.getMetadata().getAnnotations().get(CLUSTER_ANNOTATION);
            if (c != null && !c.isBlank()) return c.trim();
        }
        return fallback;
    }
}
