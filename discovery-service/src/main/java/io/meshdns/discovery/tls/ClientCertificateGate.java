package io.meshdns.discovery.tls;

import io.quarkus.runtime.Startup;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import java.util.List;

/**
 * Mutual TLS for the catalog: with {@code meshdns.discovery.tls.require-client-certificate}, a request to the API
 * or the status page without a verified client certificate is answered 403 before any handler runs. The
 * handshake verifies a presented certificate against {@code quarkus.tls.trust-store.*} (the server asks for one,
 * {@code quarkus.http.ssl.client-auth=request}, fixed at build time so the kubelet's probes, which have none,
 * still reach {@code /q/health}); this gate refuses the callers that presented none.
 */
@Startup
@ApplicationScoped
public class ClientCertificateGate {
    private static final Logger LOG = Logger.getLogger(ClientCertificateGate.class);
    static final String KEY = "meshdns.discovery.tls.require-client-certificate";
    /** The paths that carry the catalog. */
    private static final List<String> GUARDED = List.of("/v1/", "/status");

    @Inject
    DiscoveryTlsConfig config;

    @PostConstruct
    void validate() {
        if (config.requireClientCertificate() && !hasTrustStore(ConfigProvider.getConfig())) {
            throw new IllegalArgumentException("invalid discovery configuration: " + KEY + ": 'true' needs a CA to verify client"
                    + " certificates with (quarkus.tls.trust-store.pem.certs, or a p12/jks trust store)");
        }
    }

    static boolean hasTrustStore(Config c) {
        for (String k : c.getPropertyNames()) {
            if (k.startsWith("quarkus.tls.trust-store.") && c.getOptionalValue(k, String.class).filter(v -> !v.isBlank()).isPresent()) {
                return true;
            }
        }
        return false;
    }

    void routes(@Observes Router router) {
        if (!config.requireClientCertificate()) return;
        LOG.infof("%s: the API and /status answer callers with a verified client certificate only", KEY);
        router.route().order(Integer.MIN_VALUE).handler(this::gate);
    }

    private void gate(RoutingContext rc) {
        String path = rc.normalizedPath();
        if (GUARDED.stream().noneMatch(path::startsWith) || verifiedClient(rc.request())) {
            rc.next();
            return;
        }
        rc.response().setStatusCode(403).putHeader("Content-Type", "text/plain").end("client certificate required\n");
    }

    static boolean verifiedClient(HttpServerRequest request) {
        if (!request.isSSL()) return false;
        SSLSession session = request.sslSession();
        if (session == null) return false;
        try {
            return session.getPeerCertificates().length > 0; // presented, and the handshake verified it
        } catch (SSLPeerUnverifiedException e) {
            return false;
        }
    }
}
