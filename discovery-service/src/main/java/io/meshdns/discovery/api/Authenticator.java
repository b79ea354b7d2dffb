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
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Bearer-token check for every {@code /v1/*} request. The mode is fixed at start:
 * <ol>
 * <li>{@code meshdns.discovery.auth.disabled=true}: everything is accepted (local demos only);</li>
 * <li>{@code meshdns.discovery.shared-token} set: the token must equal it (constant-time compare);</li>
 * <li>local cluster enabled: the token is checked with a TokenReview against the local API server
 *     (a ServiceAccount token of any pod passes), verdicts cached for {@code auth.cache-ttl};</li>
 * <li>otherwise every request is refused: there is nothing to check a token against.</li>
 * </ol>
 */
@ApplicationScoped
public class Authenticator {
    private static final Logger LOG = Logger.getLogger(Authenticator.class);
    private static final int MAX_CACHED = 10_000;

    public enum Mode { DISABLED, SHARED_TOKEN, TOKEN_REVIEW, REFUSE_ALL }

    private record Verdict(boolean ok, long expiresAtMillis) {
    }

    @Inject
    DiscoveryConfig config;
    @Inject
    ClusterManager clusters;

    private Supplier<Optional<KubernetesClient>> localClient;
    private Mode mode;
    private byte[] sharedDigest;
    private final Map<String, Verdict> cache = new ConcurrentHashMap<>();

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

    /** Checks an Authorization header value; may block (TokenReview) unless {@link #isNonBlocking()}. */
    public boolean authenticate(String authorization) {
        if (mode == Mode.DISABLED) return true;
        if (mode == Mode.REFUSE_ALL) return false;
        String token = bearer(authorization);
        if (token == null) return false;
        if (mode == Mode.SHARED_TOKEN) {
            // Digests have a fixed length, so the comparison time says nothing about the token.
            return MessageDigest.isEqual(sha256(token), sharedDigest);
        }
        String key = HexFormat.of().formatHex(sha256(token));
        long now = System.currentTimeMillis();
        Verdict v = cache.get(key);
        if (v != null && v.expiresAtMillis() > now) return v.ok();
        boolean ok = tokenReview(token);
        if (cache.size() >= MAX_CACHED) cache.clear();
        cache.put(key, new Verdict(ok, now + config.auth().cacheTtl().toMillis()));
        return ok;
    }

    private boolean tokenReview(String token) {
        KubernetesClient client = localClient.get().orElse(null);
        if (client == null) return false;
        try {
            TokenReview review = client.authentication().v1().tokenReviews()
                    .create(new TokenReviewBuilder().withNewSpec().withToken(token).endSpec().build());
            boolean ok = review.getStatus() != null && Boolean.TRUE.equals(review.getStatus().getAuthenticated());
            if (!ok) LOG.debugf("TokenReview refused a token: %s", review.getStatus() == null ? "no status" : review.getStatus().getError());
            return ok;
        } catch (RuntimeException e) {
            LOG.warnf("TokenReview failed, refusing the request: %s", e.getMessage());
            return false;
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
