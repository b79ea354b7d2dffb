package io.meshdns.discovery.config;

import io.quarkus.runtime.Startup;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.ConfigProvider;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Fails the start with a message naming the key when a {@code meshdns.discovery.*} value is unusable. */
@Startup
@ApplicationScoped
public class DiscoveryConfigValidator {
    @Inject
    DiscoveryConfig config;

    @PostConstruct
    void validate() {
        List<String> problems = problems(config);
        idleTimeoutProblem(config.heartbeatInterval(), ConfigProvider.getConfig()
                .getOptionalValue("quarkus.http.idle-timeout", Duration.class).orElse(QUARKUS_DEFAULT_IDLE_TIMEOUT))
                .ifPresent(problems::add);
        if (!problems.isEmpty()) {
            // One problem a line: the start report prints each as its own line, and a problem's text may hold a semicolon.
            throw new IllegalArgumentException("invalid discovery configuration: " + String.join("\n", problems));
        }
    }

    public static List<String> problems(DiscoveryConfig c) {
        List<String> p = new ArrayList<>();
        if (!c.clusterName().matches("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")) {
            p.add("meshdns.discovery.cluster-name must be a DNS label (lower case letters, digits, '-'), got '" + c.clusterName() + "'");
        }
        positive(p, "meshdns.discovery.batch-window", c.batchWindow());
        positive(p, "meshdns.discovery.stale-after", c.staleAfter());
        positive(p, "meshdns.discovery.heartbeat-interval", c.heartbeatInterval());
        positive(p, "meshdns.discovery.reconcile-interval", c.reconcileInterval());
        positive(p, "meshdns.discovery.manifest-poll-interval", c.manifestPollInterval());
        positive(p, "meshdns.discovery.remote-kubeconfig-rescan", c.remoteKubeconfigRescan());
        positive(p, "meshdns.discovery.crd-retry-interval", c.crdRetryInterval());
        positive(p, "meshdns.discovery.auth.cache-ttl", c.auth().cacheTtl());
        if (c.initialSyncTimeout().isNegative()) {
            p.add("meshdns.discovery.initial-sync-timeout must not be negative");
        }
        if (c.manifest().maxFileSizeBytes() < 1) {
            p.add("meshdns.discovery.manifest.max-file-size must be a positive size (bytes, or with K, M or G), got '"
                    + c.manifest().maxFileSize() + "'");
        }
        long queued = c.watch().maxQueuedBytesValue();
        if (queued < 4096 || queued > Integer.MAX_VALUE) {
            p.add("meshdns.discovery.watch.max-queued-bytes must be a size from 4K to 2G-1 (bytes, or with K, M or G), got '"
                    + c.watch().maxQueuedBytes() + "'");
        }
        positive(p, "meshdns.discovery.watch.max-lag", c.watch().maxLag());
        if (c.manifest().maxDepth() < 1 || c.manifest().maxDepth() > 10_000) {
            p.add("meshdns.discovery.manifest.max-depth must be between 1 and 10000, got " + c.manifest().maxDepth());
        }
        if (c.historySize() < 1) {
            p.add("meshdns.discovery.history-size must be at least 1, got " + c.historySize());
        }
        c.remoteKubeconfigDir().ifPresent(d -> {
            if (Files.exists(d) && !Files.isDirectory(d)) {
                p.add("meshdns.discovery.remote-kubeconfig-dir is not a directory: " + d);
            }
        });
        for (Path d : c.manifestDirs().orElse(List.of())) {
            if (!Files.isDirectory(d)) {
                p.add("meshdns.discovery.manifest-dirs entry is not a directory: " + d);
            }
        }
        for (String subject : c.authorizedSubjects()) {
            if (subject.trim().equals("group:") || subject.trim().startsWith("group:") && subject.trim().substring(6).isBlank()) {
                p.add("meshdns.discovery.authorized-subjects entry '" + subject + "' names no group");
            }
        }
        c.sharedToken().ifPresent(t -> {
            if (t.isBlank()) p.add("meshdns.discovery.shared-token is blank");
        });
        return p;
    }

    /** Quarkus's own default for {@code quarkus.http.idle-timeout}. */
    static final Duration QUARKUS_DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(30);

    /**
     * A watch stream is quiet between changes except for its heartbeat, and the HTTP server closes a connection
     * that stays quiet for the idle timeout: a heartbeat that is not well inside it would cut every node's
     * stream between changes (each reconnect refetching the snapshot). Half the timeout leaves room for a
     * heartbeat delayed by a busy event loop.
     */
    public static Optional<String> idleTimeoutProblem(Duration heartbeatInterval, Duration httpIdleTimeout) {
        if (httpIdleTimeout.isZero() || httpIdleTimeout.isNegative()) {
            return Optional.empty(); // no idle timeout at all: nothing cuts a quiet stream
        }
        if (heartbeatInterval.multipliedBy(2).compareTo(httpIdleTimeout) > 0) {
            return Optional.of("meshdns.discovery.heartbeat-interval must be at most half of quarkus.http.idle-timeout ("
                    + httpIdleTimeout + "), or the HTTP server closes quiet watch streams between heartbeats, got " + heartbeatInterval);
        }
        return Optional.empty();
    }

    private static void positive(List<String> p, String key, Duration d) {
        if (d.isZero() || d.isNegative()) {
            p.add(key + " must be positive, got " + d);
        }
    }
}
