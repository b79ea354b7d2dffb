package io.meshdns.discovery.api;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.meshdns.discovery.config.DiscoveryConfig;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.smallrye.config.common.MapBackedConfigSource;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The four auth modes; TokenReview against a fabric8 test server that reviews like an API server would. */
class AuthenticatorTest {

    private static DiscoveryConfig config(Map<String, String> values) {
        // Quarkus's duration syntax ("30s", "50ms") as in application.properties.
        SmallRyeConfig c = new SmallRyeConfigBuilder().withMapping(DiscoveryConfig.class)
                .withConverter(java.time.Duration.class, 200, new io.quarkus.runtime.configuration.DurationConverter())
                .withSources(new MapBackedConfigSource("test", values, 500) {
                }).build();
        return c.getConfigMapping(DiscoveryConfig.class);
    }

    @Test
    void sharedTokenMustMatchExactly() {
        Authenticator a = new Authenticator(config(Map.of("meshdns.discovery.shared-token", "s3cret",
                "meshdns.discovery.enabled-local-cluster", "false")), Optional::empty);
        assertEquals(Authenticator.Mode.SHARED_TOKEN, a.mode());
        assertTrue(a.authenticate("Bearer s3cret"));
        assertTrue(a.authenticate("bearer s3cret"));
        assertFalse(a.authenticate("Bearer s3cre"));
        assertFalse(a.authenticate("Bearer s3cret2"));
        assertFalse(a.authenticate("Basic czNjcmV0"));
        assertFalse(a.authenticate(null));
        assertFalse(a.authenticate("Bearer "));
    }

    @Test
    void withoutTokenOrClusterEverythingIsRefusedUnlessExplicitlyDisabled() {
        Authenticator refuse = new Authenticator(config(Map.of("meshdns.discovery.enabled-local-cluster", "false")), Optional::empty);
        assertEquals(Authenticator.Mode.REFUSE_ALL, refuse.mode());
        assertFalse(refuse.authenticate("Bearer anything"));
        Authenticator open = new Authenticator(config(Map.of("meshdns.discovery.enabled-local-cluster", "false",
                "meshdns.discovery.auth.disabled", "true")), Optional::empty);
        assertTrue(open.authenticate(null));
    }

    @Test
    void tokenReviewDecidesAndItsVerdictIsCached() {
        KubernetesServer server = new KubernetesServer(false, false, InetAddress.getLoopbackAddress(), 0, List.of());
        server.before();
        try {
            KubernetesSerialization json = new KubernetesSerialization();
            AtomicInteger reviews = new AtomicInteger();
            server.expect().post().withPath("/apis/authentication.k8s.io/v1/tokenreviews").andReply(201, req -> {
                reviews.incrementAndGet();
                TokenReview in = json.unmarshal(req.getUtf8Body(), TokenReview.class);
                boolean ok = "sa-token-of-dns-pod".equals(in.getSpec().getToken());
                return new TokenReviewBuilder(in).withNewStatus().withAuthenticated(ok)
                        .withNewUser().withUsername(ok ? "system:serviceaccount:meshdns:dns" : null).endUser().endStatus().build();
            }).always();
            Authenticator a = new Authenticator(config(Map.of("meshdns.discovery.authorized-subjects", "system:serviceaccount:meshdns:dns")),
                    () -> Optional.of(server.getClient()));
            assertEquals(Authenticator.Mode.TOKEN_REVIEW, a.mode());
            assertTrue(a.authenticate("Bearer sa-token-of-dns-pod"));
            assertFalse(a.authenticate("Bearer forged"));
            assertEquals(2, reviews.get());
            assertTrue(a.authenticate("Bearer sa-token-of-dns-pod"));
            assertFalse(a.authenticate("Bearer forged"));
            assertEquals(2, reviews.get(), "verdicts come from the cache within auth.cache-ttl");
            assertFalse(a.authenticate(null));
            assertEquals(2, reviews.get(), "no header: refused without asking the API server");
        } finally {
            server.after();
        }
    }

    /** A TokenReview server that knows three service-account tokens of the cluster and their groups. */
    private static KubernetesServer reviewer(AtomicInteger reviews) {
        KubernetesServer server = new KubernetesServer(false, false, InetAddress.getLoopbackAddress(), 0, List.of());
        server.before();
        KubernetesSerialization json = new KubernetesSerialization();
        Map<String, String> users = Map.of(
                "token-dns", "system:serviceaccount:meshdns-system:dns-service",
                "token-web", "system:serviceaccount:shop:web",
                "token-edge", "system:serviceaccount:edge:node-agent");
        server.expect().post().withPath("/apis/authentication.k8s.io/v1/tokenreviews").andReply(201, req -> {
            reviews.incrementAndGet();
            TokenReview in = json.unmarshal(req.getUtf8Body(), TokenReview.class);
            String user = users.get(in.getSpec().getToken());
            String ns = user == null ? null : user.split(":")[2];
            return new TokenReviewBuilder(in).withNewStatus().withAuthenticated(user != null)
                    .withNewUser().withUsername(user)
                    .withGroups(user == null ? List.of() : List.of("system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"))
                    .endUser().endStatus().build();
        }).always();
        return server;
    }

    @Test
    void tokenReviewAuthenticatesButOnlyAuthorizedSubjectsMayRead() {
        AtomicInteger reviews = new AtomicInteger();
        KubernetesServer server = reviewer(reviews);
        try {
            // The default: only dns-service's own service account.
            Authenticator a = new Authenticator(config(Map.of()), () -> Optional.of(server.getClient()));
            assertEquals(Authenticator.Decision.ALLOWED, a.check("Bearer token-dns"));
            assertEquals(Authenticator.Decision.FORBIDDEN, a.check("Bearer token-web"),
                    "any other service account of the cluster is authenticated, not authorized");
            assertEquals(Authenticator.Decision.UNAUTHENTICATED, a.check("Bearer forged"));
            assertEquals(Authenticator.Decision.FORBIDDEN, a.check("Bearer token-web"), "cached verdict");
            assertEquals(3, reviews.get());

            // A group entry admits every service account of a namespace.
            Authenticator groups = new Authenticator(config(Map.of("meshdns.discovery.authorized-subjects",
                    "system:serviceaccount:meshdns-system:dns-service,group:system:serviceaccounts:edge")),
                    () -> Optional.of(server.getClient()));
            assertEquals(Authenticator.Decision.ALLOWED, groups.check("Bearer token-edge"));
            assertEquals(Authenticator.Decision.ALLOWED, groups.check("Bearer token-dns"));
            assertEquals(Authenticator.Decision.FORBIDDEN, groups.check("Bearer token-web"));
        } finally {
            server.after();
        }
    }

    @Test
    void aFloodOfForgedTokensNeverEvictsTheVerdictOfARealNode() {
        AtomicInteger reviews = new AtomicInteger();
        KubernetesServer server = reviewer(reviews);
        try {
            Authenticator a = new Authenticator(config(Map.of("meshdns.discovery.auth.cache-ttl", "10m")),
                    () -> Optional.of(server.getClient()));
            assertEquals(Authenticator.Decision.ALLOWED, a.check("Bearer token-dns"));
            assertEquals(1, reviews.get());
            // More distinct forged tokens than the whole cache holds: each one is reviewed (and refused).
            int forged = 10_001;
            for (int i = 0; i < forged; i++) {
                assertEquals(Authenticator.Decision.UNAUTHENTICATED, a.check("Bearer forged-" + i));
            }
            assertEquals(1 + forged, reviews.get());
            assertEquals(Authenticator.Decision.ALLOWED, a.check("Bearer token-dns"));
            assertEquals(1 + forged, reviews.get(), "the real node's verdict is still cached: refusals have a cap of their own");
            assertTrue(a.cachedRefusals() <= Authenticator.MAX_CACHED_REFUSALS, "refusals cached: " + a.cachedRefusals());
        } finally {
            server.after();
        }
    }

    @Test
    void aBlankAuthorizedSubjectFailsTheStartNamingTheKey() {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new Authenticator(config(Map.of("meshdns.discovery.authorized-subjects", "group:")), Optional::empty));
        assertTrue(e.getMessage().startsWith("meshdns.discovery.authorized-subjects: "), e.getMessage());
    }
}
