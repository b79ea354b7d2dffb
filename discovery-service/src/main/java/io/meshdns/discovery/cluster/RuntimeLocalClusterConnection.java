package io.meshdns.discovery.cluster;

import io.fabric8.kubernetes.client.Config;
import io.quarkus.kubernetes.client.KubernetesConfigCustomizer;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

import java.util.Optional;

/**
 * Applies the local cluster's connection keys at run time. Quarkus 3.33 fixes
 * {@code quarkus.kubernetes-client.api-server-url}, {@code token} and {@code trust-certs} at build
 * time, so a packaged discovery-service would ignore them; users and scripts set them when they
 * start the jar (the documented way to reach the local cluster), so we read their
 * run-time values here and put them into the client's Config before the client is built.
 */
@Singleton
public class RuntimeLocalClusterConnection implements KubernetesConfigCustomizer {
    private static final Logger LOG = Logger.getLogger(RuntimeLocalClusterConnection.class);
    private static final String PREFIX = "quarkus.kubernetes-client.";

    @Override
    public void customize(Config config) {
        org.eclipse.microprofile.config.Config runtime = ConfigProvider.getConfig();
        Optional<String> url = value(runtime, "api-server-url").or(() -> value(runtime, "master-url"));
        url.ifPresent(u -> {
            if (!u.equals(config.getMasterUrl())) {
                LOG.infof("local cluster API server %s (from %sapi-server-url)", u, PREFIX);
            }
            config.setMasterUrl(u);
        });
        value(runtime, "token").ifPresent(config::setOauthToken);
        value(runtime, "trust-certs").map(Boolean::parseBoolean).ifPresent(config::setTrustCerts);
        value(runtime, "namespace").ifPresent(config::setNamespace);
    }

    private static Optional<String> value(org.eclipse.microprofile.config.Config runtime, String key) {
        return runtime.getOptionalValue(PREFIX + key, String.class).filter(v -> !v.isBlank());
    }
}
