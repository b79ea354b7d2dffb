package io.meshdns.exposure.provider;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** {@code meshdns.exposure.provider-cache-time}: ExternalDNS's {@code --provider-cache-time} (see {@link CachedProvider}). */
@ConfigMapping(prefix = "meshdns.exposure")
public interface ProviderCacheConfig {

    /** How long a zone read of a webhook, pdns or coredns provider is reused; 0 (default) = read every pass. */
    @WithDefault("0s")
    Duration providerCacheTime();
}
