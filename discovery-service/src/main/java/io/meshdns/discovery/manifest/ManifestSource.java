package io.meshdns.discovery.manifest;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.meshdns.discovery.catalog.CatalogAggregator;
import io.meshdns.discovery.rejection.RejectionReporter;
import io.meshdns.discovery.metrics.DiscoveryMetrics;
import io.meshdns.discovery.translate.Translation;
import io.meshdns.discovery.kinds.DiscoveryKinds;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.ClusterStatus;
import io.meshdns.model.Kind;
import io.meshdns.model.ObjectRef;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
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
 *
 * <p>One file never takes the source down: a file larger than {@link ManifestFile.Limits#maxFileSize()} is not
 * read, one nested deeper than {@link ManifestFile.Limits#maxDepth()} is not parsed, and anything else a file
 * throws (a parser's {@code StackOverflowError} included) rejects that file alone. A rejected file
 * keeps its previous objects and is listed in {@link #rejectedFiles()}; {@link #healthy()} is false
 * while a file has never been loaded since start, because its records are then missing.
 */
public final class ManifestSource {
    public static final String CLUSTER_ANNOTATION = "meshdns.io/cluster";
    public static final String SOURCE_ID = "manifests";
    private static final Logger LOG = Logger.getLogger(ManifestSource.class);

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
    /** The stamp each file had when it was last read successfully: an unchanged file is not parsed again. */
    private final Map<Path, FileStamp> parsedStamps = new HashMap<>();
    private Map<ObjectRef, CatalogEntry> published = Map.of();
    private Set<String> publishedClusters = Set.of();
    private boolean firstLoadDone;
    private final ManifestFile.Limits limits;
    private volatile Map<Path, String> rejectedFiles = Map.of();
    private volatile boolean lastPollFailed;
    private final Set<Path> neverLoaded = new HashSet<>();

    public ManifestSource(List<Path> dirs, String defaultCluster, String localCluster, CatalogAggregator aggregator,
                          DiscoveryMetrics metrics, RejectionReporter rejections, Predicate<String> clusterWatchedElsewhere) {
        this(dirs, defaultCluster, localCluster, aggregator, metrics, rejections, clusterWatchedElsewhere, ManifestFile.Limits.DEFAULT);
    }

    public ManifestSource(List<Path> dirs, String defaultCluster, String localCluster, CatalogAggregator aggregator,
                          DiscoveryMetrics metrics, RejectionReporter rejections, Predicate<String> clusterWatchedElsewhere,
                          ManifestFile.Limits limits) {
        this.limits = limits;
        this.dirs = List.copyOf(dirs);
        this.defaultCluster = defaultCluster;
        this.localCluster = localCluster;
        this.aggregator = aggregator;
        this.metrics = metrics;
        this.rejections = rejections;
        this.clusterWatchedElsewhere = clusterWatchedElsewhere;
    }

    /**
     * Rereads the manifests if anything changed. Returns true when it reloaded. Never throws, whatever
     * a file does: it runs on a fixed-delay schedule, which an escaping throwable would end for good.
     * The initial sync is reported only after a complete pass, so a catalog that could not be built
     * is never served as if it were the whole truth.
     */
    public synchronized boolean poll() {
        try {
            Map<Path, FileStamp> stamps = scan();
            if (firstLoadDone && stamps.equals(lastStamps)) return false;
            load(stamps);
            lastStamps = stamps;
            lastPollFailed = false;
            if (!firstLoadDone) {
                firstLoadDone = true;
                aggregator.initialSyncDone(SOURCE_ID);
            }
            return true;
        } catch (Throwable e) {
            lastPollFailed = true;
            LOG.errorf(e, "manifest source: reload failed, keeping the previous state");
            return false;
        }
    }

    /** Files not (re)loaded on the last pass, with why; their previous objects are still served. */
    public Map<Path, String> rejectedFiles() {
        return rejectedFiles;
    }

    /**
     * False when the catalog is known to miss manifest content: the last pass failed as a whole, or a
     * file has been rejected every time since start (a file that turned bad later keeps its last objects).
     */
    public synchronized boolean healthy() {
        return firstLoadDone && !lastPollFailed && neverLoaded.isEmpty();
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
        parsedStamps.keySet().retainAll(stamps.keySet());
        neverLoaded.retainAll(stamps.keySet());
        Map<Path, String> rejected = new TreeMap<>();
        for (Map.Entry<Path, FileStamp> stamp : stamps.entrySet()) {
            Path file = stamp.getKey();
            List<HasMetadata> objects;
            try {
                if (stamp.getValue().equals(parsedStamps.get(file)) && lastGoodObjects.containsKey(file)) {
                    // Same size and mtime as when it was parsed, the same test that tells a change at all: one
                    // edited file among many costs its own parse, not every file's (the per-delta cost of the source).
                    objects = lastGoodObjects.get(file);
                } else {
                    objects = read(file, stamp.getValue().size());
                    lastGoodObjects.put(file, objects);
                    parsedStamps.put(file, stamp.getValue());
                }
                neverLoaded.remove(file);
            } catch (Throwable e) {
                String why = e instanceof StackOverflowError ? "nested too deeply for the parser"
                        : e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
                rejected.put(file, why);
                objects = lastGoodObjects.get(file);
                if (objects == null) {
                    objects = List.of();
                    neverLoaded.add(file);
                }
                LOG.errorf("manifest %s: rejected (%s); keeping its %d previous objects", file, why, objects.size());
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
                Kind kind = DiscoveryKinds.kindOf(obj);
                if (kind == null) continue; // Deployments and friends: not ours, silently.
                metrics.event(cluster, kind);
                Translation t;
                try {
                    t = DiscoveryKinds.translate(cluster, obj);
                } catch (RuntimeException | StackOverflowError e) {
                    LOG.errorf("manifest %s: %s %s cannot be translated (%s); skipped", file, obj.getKind(),
                            obj.getMetadata() == null ? "?" : obj.getMetadata().getName(), e);
                    continue;
                }
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
        LOG.infof("manifest source: %d objects in %d clusters from %d files (%d rejected)", next.size(), clusters.size(),
                stamps.size(), rejected.size());
        rejectedFiles = Map.copyOf(rejected);
        published = next;
        publishedClusters = clusters;
    }

    /** Reads one file within the limits and parses it; throws with a one-line reason naming the limit's key. */
    private List<HasMetadata> read(Path file, long size) throws IOException {
        if (size > limits.maxFileSize()) {
            throw new IOException(size + " bytes is more than meshdns.discovery.manifest.max-file-size (" + limits.maxFileSize() + ")");
        }
        byte[] bytes;
        try (var in = Files.newInputStream(file)) {
            bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, limits.maxFileSize() + 1));
        }
        ManifestFile.Result result = ManifestFile.parse(bytes, limits);
        if (result instanceof ManifestFile.Rejected rejected) throw new IOException(rejected.reason());
        return ((ManifestFile.Loaded) result).objects();
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
