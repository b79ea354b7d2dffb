package io.meshdns.exposure.provider;

import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.plan.Changes;
import io.meshdns.exposure.plan.DomainFilter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * ExternalDNS's {@code --provider-cache-time} ({@code provider.CachedProvider}): the zone read is
 * reused for the cache time, so frequent event-driven passes do not each list a whole zone from an
 * HTTP API; any applied change drops the cache, so the next pass reads what it wrote. An empty change
 * set writes nothing and keeps the cache, as in ExternalDNS. Only RRset-level providers (webhook,
 * pdns, coredns) are wrapped: rfc2136 already reads a zone only when its SOA serial moved.
 */
public final class CachedProvider implements Provider {

    private final Provider delegate;
    private final long ttlNanos;
    private final LongSupplier nanoClock;
    private List<Endpoint> cached;
    private long readAt;
    private long hits;

    CachedProvider(Provider delegate, Duration ttl, LongSupplier nanoClock) {
        this.delegate = delegate;
        this.ttlNanos = ttl.toNanos();
        this.nanoClock = nanoClock;
    }

    /** {@code provider} behind a read cache of {@code ttl}; unchanged when the ttl is zero or the provider is record-level. */
    public static Provider wrap(Provider provider, Duration ttl) {
        return wrap(provider, ttl, System::nanoTime);
    }

    static Provider wrap(Provider provider, Duration ttl, LongSupplier nanoClock) {
        if (ttl.isZero() || ttl.isNegative() || provider instanceof RecordLevelProvider) return provider;
        return new CachedProvider(provider, ttl, nanoClock);
    }

    @Override
    public synchronized List<Endpoint> records() throws ProviderException {
        long now = nanoClock.getAsLong();
        if (cached != null && now - readAt < ttlNanos) {
            hits++;
            return cached;
        }
        cached = List.copyOf(delegate.records());
        readAt = now;
        return cached;
    }

    @Override
    public synchronized void apply(Changes changes) throws ProviderException {
        if (changes.isEmpty()) return;
        // dropped before writing: after a failure some changes may be in, so the next read must look
        cached = null;
        delegate.apply(changes);
    }

    @Override
    public List<Endpoint> adjust(List<Endpoint> desired) throws ProviderException {
        return delegate.adjust(desired);
    }

    @Override
    public Set<String> storedProperties() {
        return delegate.storedProperties();
    }

    @Override
    public Optional<DomainFilter> domainFilter() {
        return delegate.domainFilter();
    }

    @Override
    public synchronized Map<String, Long> zoneReadCounts() {
        var out = new java.util.TreeMap<String, Long>(delegate.zoneReadCounts());
        out.put("cached", out.getOrDefault("cached", 0L) + hits);
        return out;
    }

    @Override
    public String describe() {
        return delegate.describe();
    }
}
