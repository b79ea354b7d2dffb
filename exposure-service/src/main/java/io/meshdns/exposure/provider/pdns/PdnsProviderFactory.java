package io.meshdns.exposure.provider.pdns;

import io.meshdns.exposure.provider.Provider;
import io.meshdns.exposure.provider.ProviderContext;
import io.meshdns.exposure.provider.ProviderFactory;
import io.meshdns.exposure.provider.ProviderKeys;
import jakarta.inject.Singleton;
import java.net.URI;
import java.util.List;

/** {@code meshdns.exposure.provider=pdns}: PowerDNS Authoritative through its HTTP API. */
@Singleton
public final class PdnsProviderFactory implements ProviderFactory {

    private final PdnsConfig config;

    public PdnsProviderFactory(PdnsConfig config) {
        this.config = config;
    }

    /** ExternalDNS's pdns provider writes 300 s for a record without a TTL. */
    public static final long EXTERNAL_DNS_DEFAULT_TTL = 300;

    @Override
    public String name() {
        return "pdns";
    }

    @Override
    public List<Provider> create(ProviderContext context) {
        String server = ProviderKeys.required("meshdns.exposure.pdns.server", config.server(), name());
        String apiKey = ProviderKeys.required("meshdns.exposure.pdns.api-key", config.apiKey(), name());
        URI uri = ProviderKeys.httpUrl("meshdns.exposure.pdns.server", server);
        String serverId = config.serverId();
        ProviderKeys.check(!serverId.isBlank() && !serverId.contains("/"), "meshdns.exposure.pdns.server-id",
                "'" + serverId + "' is not a server id");
        return List.of(new PdnsProvider(uri, apiKey, serverId, config.timeout(), context.domainFilter(),
                context.defaultTtl().orElse(EXTERNAL_DNS_DEFAULT_TTL)));
    }
}
