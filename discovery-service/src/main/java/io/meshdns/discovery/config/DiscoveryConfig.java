package io.meshdns.discovery.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Every {@code meshdns.discovery.*} key. The names are a contract with users and scripts: see
 * discovery-service/README.md for the table. {@link DiscoveryConfigValidator} rejects bad values at
 * start with a message naming the key.
 */
@ConfigMapping(prefix = "meshdns.discovery")
public interface DiscoveryConfig {

    /** Name of the local cluster; every record from it carries this name. */
    @WithDefault("local")
    String clusterName();

    /** Watch the local cluster's API (in-cluster config, quarkus.kubernetes-client.* or KUBECONFIG). */
    @WithName("enabled-local-cluster")
    @WithDefault("true")
    boolean enabledLocalCluster();

    /** Directory of kubeconfig files, one per remote cluster; file name without extension = cluster name. */
    Optional<Path> remoteKubeconfigDir();

    /** How often the remote kubeconfig directory is rescanned. */
    @WithDefault("5s")
    Duration remoteKubeconfigRescan();

    /** Watch Secrets labelled istio/multiCluster=true in the local cluster for remote clusters. */
    @WithDefault("true")
    boolean watchRemoteSecrets();

    /** Namespace of the remote Secrets; unset means every namespace. */
    Optional<String> remoteSecretsNamespace();

    /** Directories of Kubernetes YAML/JSON manifests (the file source). */
    Optional<List<Path>> manifestDirs();

    /** How often the manifest directories are checked for changes. */
    @WithDefault("1s")
    Duration manifestPollInterval();

    Manifest manifest();

    /**
     * Who may read the API in TokenReview mode: usernames ({@code system:serviceaccount:<ns>:<name>})
     * and {@code group:<group>} entries, matched against the TokenReview's user. An authenticated
     * token of anyone else gets 403.
     */
    @WithDefault("system:serviceaccount:meshdns-system:dns-service")
    List<String> authorizedSubjects();

    /** Shared bearer token (edge nodes, tests). Unset in a cluster: tokens are checked with TokenReview. */
    Optional<String> sharedToken();

    Auth auth();

    /** Events within this window become one new version. */
    @WithDefault("50ms")
    Duration batchWindow();

    /** A cluster without a healthy watch for this long is marked stale (it keeps its last known state). */
    @WithDefault("60s")
    Duration staleAfter();

    /** Number of deltas kept for {@code /v1/watch?since=V}; older clients get a full snapshot. */
    @WithDefault("1000")
    int historySize();

    /** Interval of heartbeat lines on {@code /v1/watch}. */
    @WithDefault("15s")
    Duration heartbeatInterval();

    /** Interval of the informer-store versus catalog reconcile (and the informer resync). */
    @WithDefault("60s")
    Duration reconcileInterval();

    /** How long the catalog waits for the initial sync of the sources known at start before serving anyway. */
    @WithDefault("10s")
    Duration initialSyncTimeout();

    @WithDefault("true")
    boolean watchPods();

    @WithDefault("true")
    boolean watchServiceEntries();

    @WithDefault("false")
    boolean watchServiceImports();

    /** How often a missing CRD (ServiceEntry, ServiceImport) is looked for again. */
    @WithDefault("60s")
    Duration crdRetryInterval();

    Watch watch();

    /** Record a Kubernetes Event on objects that are rejected as malformed. */
    @WithDefault("true")
    boolean recordEvents();

    /** Limits on one manifest file: a file beyond them is rejected alone (its previous objects kept). */
    interface Manifest {
        /** Largest file read: bytes, or with a {@code K}, {@code M} or {@code G} suffix ({@code 4M}, {@code 512K}). */
        @WithDefault("4M")
        String maxFileSize();

        /** {@link #maxFileSize()} in bytes; -1 when it is not a size. */
        default long maxFileSizeBytes() {
            return bytes(maxFileSize());
        }

        /** Deepest nesting (block indentation levels plus flow brackets) parsed. */
        @WithDefault("64")
        int maxDepth();
    }

    /**
     * How far one {@code /v1/watch} stream may fall behind. A stream whose unsent output is above
     * {@link #maxQueuedBytes()} skips deltas (memory stays bounded); one still above it after
     * {@link #maxLag()} is cut off, so a stalled node neither holds memory nor delays the others. Its
     * client reconnects with {@code since=V} and catches up from its version.
     */
    interface Watch {
        /** Unsent bytes on one stream (not yet taken by its socket) above which it counts as behind: bytes, or K/M/G. */
        @WithDefault("1M")
        String maxQueuedBytes();

        /** {@link #maxQueuedBytes()} in bytes; -1 when it is not a size. */
        default long maxQueuedBytesValue() {
            return bytes(maxQueuedBytes());
        }

        /** A stream behind for this long without draining is closed. */
        @WithDefault("10s")
        Duration maxLag();
    }

    /** A size in bytes, or with a {@code K}, {@code M} or {@code G} suffix ({@code 4M}, {@code 512K}); -1 when it is not one. */
    static long bytes(String size) {
        String v = size.trim().toUpperCase(java.util.Locale.ROOT);
        long unit = 1;
        if (v.endsWith("K") || v.endsWith("M") || v.endsWith("G")) {
            unit = v.endsWith("K") ? 1024L : v.endsWith("M") ? 1024L * 1024 : 1024L * 1024 * 1024;
            v = v.substring(0, v.length() - 1);
        }
        try {
            long n = Long.parseLong(v);
            return n < 0 || n > Long.MAX_VALUE / unit ? -1 : n * unit;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    interface Auth {
        /**
         * Accept every request without a token. Only for local demos: without a shared token and
         * without a local cluster (for TokenReview), every request is refused unless this is true.
         */
        @WithDefault("false")
        boolean disabled();

        /** How long a TokenReview verdict is cached. */
        @WithDefault("30s")
        Duration cacheTtl();

        /**
         * Serve the HTML status page without a token to callers on this machine's own loopback address
         * (127.0.0.1 or ::1): where {@code kubectl port-forward} arrives, and a browser cannot send a bearer token.
         * Every other caller of the page needs the stream's token, as {@code /v1/*} does.
         */
        @WithDefault("true")
        boolean statusPageFromLoopback();
    }
}
