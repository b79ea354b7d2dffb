package io.meshdns.dns.dynamic;

import io.meshdns.dns.tsig.TsigGate;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

/**
 * The one {@link TsigGate} of the process (its replay cache must be shared by every listener), built from the keys
 * configured here. The request path ({@code server}) injects it by type, so it never imports this package, which
 * itself implements the request path's seams.
 */
@ApplicationScoped
public class TsigGateProducer {
    @Inject
    DynamicZones zones;

    @Produces
    @Singleton
    TsigGate gate() {
        return new TsigGate(zones.settings().keys());
    }
}
