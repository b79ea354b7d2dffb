package io.meshdns.exposure.provider;

import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.plan.Changes;
import io.meshdns.exposure.plan.DomainFilter;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A DNS backend, as ExternalDNS's {@code provider.Provider}: reads every RRset of the zones it
 * manages and applies RRset-level {@link Changes} (create, update old → new, delete of whole RRsets).
 * Ownership is not its business: the registry on top of it decides what may be written.
 *
 * <p>TXT targets are plain text in both directions (no zone-file quotes): a provider whose backend
 * stores quoted text (PowerDNS, ExternalDNS's webhook and CoreDNS formats) adds and strips them.
 */
public interface Provider {

    /** Every RRset in the managed zones (TXT included, one target per TXT record); no ownership logic. */
    List<Endpoint> records() throws ProviderException;

    /**
     * Applies the changes. A {@link ProviderException#rejected() rejected} exception means the backend
     * refused this data (the caller may split the batch to find the culprit); any other exception
     * means the backend could not be reached, and some changes may or may not have been applied.
     */
    void apply(Changes changes) throws ProviderException;

    /** ExternalDNS's AdjustEndpoints: the provider may rewrite or drop desired endpoints it cannot hold. */
    default List<Endpoint> adjust(List<Endpoint> desired) throws ProviderException {
        return desired;
    }

    /**
     * The provider-specific properties this backend stores and reads back (CoreDNS: {@code coredns/group}): the plan
     * sees a change of one of them as an update, and the ownership claim carries them, as ExternalDNS does. Others
     * are passed on but never compared, since a backend that drops them would be updated on every pass.
     */
    default Set<String> storedProperties() {
        return Set.of();
    }

    /** The names this backend serves, when it says so itself (the webhook's negotiation); empty = no limit. */
    default Optional<DomainFilter> domainFilter() {
        return Optional.empty();
    }

    /**
     * Zone reads since start by kind, for {@code meshdns_exposure_zone_reads_total{kind}}: rfc2136
     * counts {@code ixfr}, {@code axfr} and {@code cached} (serial unchanged, nothing transferred);
     * providers without zone transfers report nothing.
     */
    default java.util.Map<String, Long> zoneReadCounts() {
        return java.util.Map.of();
    }

    /** Short name for logs and metrics, e.g. "rfc2136 127.0.0.1:5300". */
    String describe();
}
