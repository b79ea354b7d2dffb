package io.meshdns.discovery.api;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshdns.discovery.cluster.ClusterManager;
import io.meshdns.discovery.config.DiscoveryConfig;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Bearer-token check for every {@code /v1/*} request. The mode is fixed at start:
 * <ol>
 * <li>{@code meshdns.discovery.auth.disabled=true}: everything is accepted (local demos only);</li>
 * <li>{@code meshdns.discovery.shared-token} set: the token must equal it (constant-time compare);</li>
 * <li>local cluster enabled: the token is checked with a TokenReview against the local API server,
 *     and the user it names must be one of {@code meshdns.discovery.authorized-subjects} (a username,
 *     or {@code group:<name>} for any member of a group); verdicts cached for {@code auth.cache-ttl}.
 *     Authentication alone is not enough: every pod of the cluster has a service-account token, and
 *     the snapshot lists every service of every cluster. Each verdict expires on its own; refusals
 *     (tokens the API server did not authenticate) are cached apart under a cap of their own, so a flood
 *     of forged tokens evicts only other refusals;</li>
 * <li>otherwise every request is refused: there is nothing to check a token against.</li>
 * </ol>
 */
@ApplicationScoped
public class Authenticator {
    private static final Logger LOG = Logger.getLogger(Authenticator.class);
    /** Verdicts on tokens the API server authenticated (one per pod that reads at most, in practice). */
    static final int MAX_CACHED = 10_000;
    /**
     * Refusals of tokens the API server did not authenticate, held apart and capped on their own: anyone
     * can send new forged tokens, and they must never push out the verdicts of real nodes.
     */
    static final int MAX_CACHED_REFUSALS = 1_024;

    public enum Mode { DISABLED, SHARED_TOKEN, TOKEN_REVIEW, REFUSE_ALL }

    /** The outcome of one check: HTTP 200, 401 or 403. */
    public enum Decision { ALLOWED, UNAUTHENTICATED, FORBIDDEN }

    private static final String GROUP_PREFIX = "group:";
    static final String SUBJECTS_KEY = "meshdns.discovery.authorized-subjects";

    private record Verdict(Decision decision, long expiresAtMillis) {
    }

    @Inject
    DiscoveryConfig config;
    @Inject
    ClusterManager clusters;

    private Supplier<Optional<KubernetesClient>> localClient;
    private Mode mode;
    private byte[] sharedDigest;
    private final Map<String, Verdict> cache = new ConcurrentHashMap<>();
    /** Insertion order: when full, the oldest refusal goes (each also expires on its own). */
    private final Map<String, Verdict> refusals = java.util.Collections.synchronizedMap(
            new java.util.LinkedHashMap<>(64, 0.75f, false) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Verdict> eldest) {
                    return size() > MAX_CACHED_REFUSALS;
                }
            });
    private java.util.Set<String> authorizedUsers = java.util.Set.of();
    private java.util.Set<String> authorizedGroups = java.util.Set.of();

    public Authenticator() {
    }

    /** Outside CDI (tests): the config and where the local client for TokenReview comes from. */
    Authenticator(DiscoveryConfig config, Supplier<Optional<KubernetesClient>> localClient) {
        this.config = config;
        this.localClient = localClient;
        init();
    }

    @PostConstruct
    void init() {
        if (localClient == null) localClient = () -> clusters.localClient();
        java.util.Set<String> users = new java.util.HashSet<>();
        java.util.Set<String> groups = new java.util.HashSet<>();
        for (String raw : config.authorizedSubjects()) {
            String subject = raw.trim();
            if (subject.isEmpty()) continue;
            if (subject.startsWith(GROUP_PREFIX)) {
                String group = subject.substring(GROUP_PREFIX.length()).trim();
                if (group.isEmpty()) throw new IllegalArgumentException(SUBJECTS_KEY + ": '" + raw + "' names no group");
                groups.add(group);
            } else {
                users.add(subject);
            }
        }
        authorizedUsers = java.util.Set.copyOf(users);
        authorizedGroups = java.util.Set.copyOf(groups);
        if (config.auth().disabled()) {
            mode = Mode.DISABLED;
            LOG.warn("meshdns.discovery.auth.disabled=true: the discovery API accepts requests without a token");
        } else if (config.sharedToken().isPresent()) {
            mode = Mode.SHARED_TOKEN;
            sharedDigest = sha256(config.sharedToken().get());
        } else if (config.enabledLocalCluster()) {
            mode = Mode.TOKEN_REVIEW;
        } else {
            mode = Mode.REFUSE_ALL;
            LOG.warn("no meshdns.discovery.shared-token and no local cluster for TokenReview: every API request is refused "
                    + "(set a shared token, or meshdns.discovery.auth.disabled=true for a local demo)");
        }
    }

    public Mode mode() {
        return mode;
    }

    /** True when the check needs no I/O and may run on the event loop. */
    public boolean isNonBlocking() {
        return mode != Mode.TOKEN_REVIEW;
    }

    /** True when the request may read; see {@link #check}. */
    public boolean authenticate(String authorization) {
        return check(authorization) == Decision.ALLOWED;
    }

    /** Checks an Authorization header value; may block (TokenReview) unless {@link #isNonBlocking()}. */
    public Decision check(String authorization) {
        if (mode == Mode.DISABLED) return Decision.ALLOWED;
        if (mode == Mode.REFUSE_ALL) return Decision.UNAUTHENTICATED;
        String token = bearer(authorization);
        if (token == null) return Decision.UNAUTHENTICATED;
        if (mode == Mode.SHARED_TOKEN) {
            // Digests have a fixed length, so the comparison time says nothing about the token.
            return MessageDigest.isEqual(sha256(token), sharedDigest) ? Decision.ALLOWED : Decision.UNAUTHENTICATED;
        }
        String key = HexFormat.of().formatHex(sha256(token));
        long now = System.currentTimeMillis();
        Verdict v = cache.get(key);
        if (v == null) v = refusals.get(key);
        if (v != null && v.expiresAtMillis() > now) return v.decision();
        Decision d = tokenReview(token);
        Verdict fresh = new Verdict(d, now + config.auth().cacheTtl().toMillis());
        if (d == Decision.UNAUTHENTICATED) {
            cache.remove(key);
            refusals.put(key, fresh);
        } else {
            refusals.remove(key);
            // Per entry: expired verdicts go first; still full, this one is not cached (the others stay).
            if (cache.size() >= MAX_CACHED) cache.values().removeIf(old -> old.expiresAtMillis() <= now);
            if (cache.size() < MAX_CACHED || cache.containsKey(key)) cache.put(key, fresh);
        }
        return d;
    }

    /** Refusals currently cached (bounded by {@link #MAX_CACHED_REFUSALS}). */
    int cachedRefusals() {
        return refusals.size();
    }

    private Decision tokenReview(String token) {
        KubernetesClient client = localClient.get().orElse(null);
        if (client == null) return Decision.UNAUTHENTICATED;
        try {
            TokenReview review = client.authentication().v1().tokenReviews()
                    .create(new TokenReviewBuilder().withNewSpec().withToken(token).endSpec().build());
            boolean ok = review.getStatus() != null && Boolean.TRUE.equals(review.getStatus().getAuthenticated());
            if (!ok) {
                LOG.debugf("TokenReview refused a token: %s", review.getStatus() == null ? "no status" : review.getStatus().getError());
                return Decision.UNAUTHENTICATED;
            }
            var user = review.getStatus().getUser();
            String username = user == null ? null : user.getUsername();
            List<String> groups = user == null || user.getGroups() == null ? List.of() : user.getGroups();
            if ((username != null && authorizedUsers.contains(username)) || groups.stream().anyMatch(authorizedGroups::contains)) {
                return Decision.ALLOWED;
            }
            LOG.warnf("discovery API: %s is authenticated but not in %s; refused (403)", username, SUBJECTS_KEY);
            return Decision.FORBIDDEN;
        } catch (RuntimeException e) {
            LOG.warnf("TokenReview failed, refusing the request: %s", e.getMessage());
            return Decision.UNAUTHENTICATED;
        }
    }

    static String bearer(String authorization) {
        if (authorization == null) return null;
        String a = authorization.trim();
        if (a.length() < 8 || !a.regionMatches(true, 0, "Bearer ", 0, 7)) return null;
        String token = a.substring(7).trim();
        return token.isEmpty() ? null : token;
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
