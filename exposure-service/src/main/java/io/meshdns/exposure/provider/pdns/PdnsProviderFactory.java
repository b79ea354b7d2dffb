package io.meshdns.exposure.provider.pdns;

import io.meshdns.exposure.provider.AbstractProviderFactory;
import io.meshdns.exposure.provider.Provider;
import io.meshdns.exposure.provider.ProviderContext;
import io.meshdns.exposure.provider.ProviderKeys;
import jakarta.inject.Singleton;
import java.net.URI;
import java.util.List;

/** {@code meshdns.exposure.provider=pdns}: PowerDNS Authoritative through its HTTP API. */
@Singleton
public final class PdnsProviderFactory extends AbstractProviderFactory<PdnsConfig> {

    public PdnsProviderFactory(PdnsConfig config) {
        super("pdns", config);
    }

    /** ExternalDNS's pdns provider writes 300 s for a record without a TTL. */
    public static final long EXTERNAL_DNS_DEFAULT_TTL = 300;

    @Override
    public List<Provider> create(ProviderContext context) {
        String server = required("server", config.server());
        String apiKey = required("api-key", config.apiKey());
        URI uri = ProviderKeys.httpUrl(key("server"), server);
        String serverId = config.serverId();
        ProviderKeys.check(!serverId.isBlank() && !serverId.contains("/"), key("server-id"),
                "'" + serverId + "' is not a server id");
        return List.of(new PdnsProvider(uri, apiKey, serverId, config.timeout(), context.domainFilter(),
                context.defaultTtl().orElse(EXTERNAL_DNS_DEFAULT_TTL)));
    }
}
