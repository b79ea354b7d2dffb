package io.meshdns.exposure.provider;

import io.meshdns.exposure.plan.DomainFilter;
import java.util.Optional;

/**
 * What every provider may need besides its own keys.
 *
 * @param defaultTtl meshdns.exposure.default-ttl when set: the TTL written for records without one;
 *     unset, each provider writes what ExternalDNS's provider of the same name writes
 */
public record ProviderContext(String ownerId, DomainFilter domainFilter, boolean dryRun, Optional<Long> defaultTtl) {
}
