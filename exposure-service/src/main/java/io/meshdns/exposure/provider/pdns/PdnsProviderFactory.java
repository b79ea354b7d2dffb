package io.meshdns.exposure.provider.pdns;

import io.meshdns.exposure.provider.Provider;
import io.meshdns.exposure.provider.ProviderContext;
import io.meshdns.exposure.provider.ProviderFactory;
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
        PdnsConfig c = config;
        String server = c.server().filter(s -> !s.isBlank()).orElseThrow(() ->
                new IllegalArgumentException("meshdns.exposure.pdns.server: required with meshdns.exposure.provider=pdns"));
        String key = c.apiKey().filter(s -> !s.isBlank()).orElseThrow(() ->
                new IllegalArgumentException("meshdns.exposure.pdns.api-key: required with meshdns.exposure.provider=pdns"));
        URI uri;
        try {
            uri = URI.create(server.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("meshdns.exposure.pdns.server: '" + server + "' is not a URL");
        }
        if (uri.getScheme() == null || !(uri.getScheme().equals("http") || uri.getScheme().equals("https")) || uri.getHost() == null) {
            throw new IllegalArgumentException("meshdns.exposure.pdns.server: '" + server + "' is not an http:// or https:// URL");
        }
        if (c.serverId().isBlank() || c.serverId().contains("/")) {
            throw new IllegalArgumentException("meshdns.exposure.pdns.server-id: '" + c.serverId() + "' is not a server id");
        }
        return List.of(new PdnsProvider(uri, key, c.serverId(), c.timeout(), context.domainFilter(),
                context.defaultTtl().orElse(EXTERNAL_DNS_DEFAULT_TTL)));
    }
}
