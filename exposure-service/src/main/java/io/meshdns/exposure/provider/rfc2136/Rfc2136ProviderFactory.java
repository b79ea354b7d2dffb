package io.meshdns.exposure.provider.rfc2136;

import io.meshdns.exposure.provider.AbstractProviderFactory;
import io.meshdns.exposure.provider.Provider;
import io.meshdns.exposure.provider.ProviderContext;
import io.meshdns.exposure.provider.ProviderKeys;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Optional;
import org.xbill.DNS.TSIG;

/** {@code meshdns.exposure.provider=rfc2136}: one RFC 2136 server (BIND9, Knot, PowerDNS with dnsupdate, ...). */
@Singleton
public final class Rfc2136ProviderFactory extends AbstractProviderFactory<Rfc2136Config> {

    public Rfc2136ProviderFactory(Rfc2136Config config) {
        super("rfc2136", config);
    }

    /** ExternalDNS's rfc2136 provider writes TTL 0 for a record that has none (its min-ttl defaults to 0). */
    public static final long EXTERNAL_DNS_DEFAULT_TTL = 0;

    @Override
    public List<Provider> create(ProviderContext context) {
        String host = required("host", config.host());
        return List.of(new Rfc2136Provider(settings(config, host, ProviderKeys.port(key("port"), config.port()),
                context, EXTERNAL_DNS_DEFAULT_TTL)));
    }

    /** The settings of one target; zones, TSIG, timeout and TTLs come from {@code meshdns.exposure.rfc2136.*}. */
    public static Rfc2136Provider.Settings settings(Rfc2136Config r, String host, int port, ProviderContext context,
                                                    long providerDefaultTtl) {
        List<String> zones = r.zones().orElse(List.of());
        ProviderKeys.check(!zones.isEmpty(), "meshdns.exposure.rfc2136.zones", "at least one zone is required");
        ProviderKeys.check(!r.minTtl().isNegative(), "meshdns.exposure.rfc2136.min-ttl", "must not be negative");
        int batch = r.batchChangeSize().orElse(Integer.MAX_VALUE);
        ProviderKeys.check(batch >= 1, "meshdns.exposure.rfc2136.batch-change-size", "must be at least 1, got " + batch);
        return new Rfc2136Provider.Settings(host, port, zones, tsig(r), r.timeout(),
                context.defaultTtl().orElse(providerDefaultTtl), r.minTtl().toSeconds(), batch);
    }

    public static Optional<TSIG> tsig(Rfc2136Config r) {
        if (r.tsigKeyName().isPresent() != r.tsigSecret().isPresent()) {
            throw new IllegalArgumentException("meshdns.exposure.rfc2136.tsig-key-name and meshdns.exposure.rfc2136.tsig-secret: set both or neither");
        }
        if (r.tsigKeyName().isEmpty()) return Optional.empty();
        return Optional.of(TsigKeys.create(r.tsigKeyName().get(), r.tsigSecret().get(), r.tsigAlgorithm()));
    }
}
