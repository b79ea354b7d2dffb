package io.meshdns.exposure.provider.webhook;

import io.meshdns.exposure.provider.Provider;
import io.meshdns.exposure.provider.ProviderContext;
import io.meshdns.exposure.provider.ProviderFactory;
import io.meshdns.exposure.provider.ProviderKeys;
import jakarta.inject.Singleton;
import java.net.URI;
import java.util.List;

/** {@code meshdns.exposure.provider=webhook}: any ExternalDNS webhook provider (the sidecar protocol). */
@Singleton
public final class WebhookProviderFactory implements ProviderFactory {

    private final WebhookConfig config;

    public WebhookProviderFactory(WebhookConfig config) {
        this.config = config;
    }

    @Override
    public String name() {
        return "webhook";
    }

    @Override
    public List<Provider> create(ProviderContext context) {
        String key = "meshdns.exposure.webhook.url";
        URI uri = ProviderKeys.httpUrl(key, ProviderKeys.required(key, config.url(), name()));
        ProviderKeys.check(config.maxAttempts() >= 1, "meshdns.exposure.webhook.max-attempts", "must be at least 1");
        ProviderKeys.check(config.maxResponseBytes() >= 1024, "meshdns.exposure.webhook.max-response-bytes", "must be at least 1024");
        // one deadline per request, body included: the read and the write timeout together
        return List.of(new WebhookProvider(uri, config.readTimeout().plus(config.writeTimeout()), config.maxAttempts(),
                config.maxResponseBytes()));
    }
}
