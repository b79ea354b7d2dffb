package io.meshdns.exposure.provider.coredns;

import io.meshdns.exposure.provider.AbstractProviderFactory;
import io.meshdns.exposure.provider.Provider;
import io.meshdns.exposure.provider.ProviderContext;
import io.meshdns.exposure.provider.ProviderKeys;
import jakarta.inject.Singleton;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/** {@code meshdns.exposure.provider=coredns}: CoreDNS's etcd plugin records (SkyDNS format) in etcd v3. */
@Singleton
public final class CorednsProviderFactory extends AbstractProviderFactory<CorednsConfig> {

    public CorednsProviderFactory(CorednsConfig config) {
        super("coredns", config);
    }

    @Override
    public List<Provider> create(ProviderContext context) {
        var urls = new ArrayList<URI>();
        for (String u : config.etcdUrls()) urls.add(ProviderKeys.httpUrl(key("etcd-urls"), u));
        ProviderKeys.check(!urls.isEmpty(), key("etcd-urls"), "at least one URL is required");
        String prefix = config.prefix().trim();
        ProviderKeys.check(prefix.startsWith("/") && prefix.endsWith("/") && prefix.length() >= 2, key("prefix"),
                "'" + config.prefix() + "' must start and end with '/' (e.g. /skydns/)");
        return List.of(new CorednsProvider(urls, prefix, config.timeout(), context.domainFilter(), context.defaultTtl().orElse(0L),
                config.strictlyOwned() ? context.ownerId() : null));
    }
}
