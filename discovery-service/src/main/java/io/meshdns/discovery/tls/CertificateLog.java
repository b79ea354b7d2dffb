package io.meshdns.discovery.tls;

import io.quarkus.runtime.StartupEvent;
import io.quarkus.tls.CertificateUpdatedEvent;
import io.quarkus.tls.TlsConfiguration;
import io.quarkus.tls.TlsConfigurationRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.Collections;
import java.util.Set;
import java.util.TreeSet;

/**
 * Says which certificate discovery serves, at start and after each reload that changed it
 * ({@code quarkus.tls.reload-period}): an operator who rotated the Secret sees the new serial and expiry in the log,
 * without a restart.
 */
@ApplicationScoped
public class CertificateLog {
    private static final Logger LOG = Logger.getLogger(CertificateLog.class);

    @Inject
    TlsConfigurationRegistry registry;
    /** The serials last logged: Quarkus fires the event every reload period, changed or not; the log says changes only. */
    private Set<String> logged = Set.of();

    void started(@Observes StartupEvent ignored) {
        registry.getDefault().ifPresent(c -> log("serving", c));
    }

    void reloaded(@Observes CertificateUpdatedEvent event) {
        log("reloaded", event.tlsConfiguration());
    }

    private synchronized void log(String what, TlsConfiguration c) {
        KeyStore ks = c.getKeyStore();
        if (ks == null) return;
        try {
            Set<String> serials = new TreeSet<>();
            for (String alias : Collections.list(ks.aliases())) {
                if (ks.getCertificate(alias) instanceof X509Certificate x) serials.add(x.getSerialNumber().toString(16).toUpperCase());
            }
            if (serials.equals(logged)) return;
            logged = serials;
            for (String alias : Collections.list(ks.aliases())) {
                if (ks.getCertificate(alias) instanceof X509Certificate x) {
                    LOG.infof("TLS certificate %s: subject '%s', serial %s, expires %s", what, x.getSubjectX500Principal().getName(),
                            x.getSerialNumber().toString(16).toUpperCase(), x.getNotAfter().toInstant());
                }
            }
        } catch (Exception e) {
            LOG.warnf("TLS certificate %s, but not readable for the log: %s", what, e.getMessage());
        }
    }
}
