package io.meshdns.exposure.provider.webhook;

import io.meshdns.exposure.provider.AbstractProviderFactory;
import io.meshdns.exposure.provider.Provider;
import io.meshdns.exposure.provider.ProviderContext;
import io.meshdns.exposure.provider.ProviderKeys;
import jakarta.inject.Singleton;
import java.net.URI;
import java.util.List;

/** {@code meshdns.exposure.provider=webhook}: any ExternalDNS webhook provider (the sidecar protocol). */
@Singleton
public final class WebhookProviderFactory extends AbstractProviderFactory<WebhookConfig> {

    public WebhookProviderFactory(WebhookConfig config) {
        super("webhook", config);
    }

    @Override
    public List<Provider> create(ProviderContext context) {
        URI uri = ProviderKeys.httpUrl(key("url"), required("url", config.url()));
        ProviderKeys.check(config.maxAttempts() >= 1, key("max-attempts"), "must be at least 1");
        ProviderKeys.check(config.maxResponseBytes() >= 1024, key("max-response-bytes"), "must be at least 1024");
        // one deadline per request, body included: the read and the write timeout together
        return List.of(new WebhookProvider(uri, config.readTimeout().plus(config.writeTimeout()), config.maxAttempts(),
                config.maxResponseBytes()));
    }
}
