package io.meshdns.exposure.registry;

import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.plan.Changes;
import io.meshdns.exposure.plan.DomainFilter;
import io.meshdns.exposure.provider.ProviderException;
import io.meshdns.exposure.provider.RecordOp;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Ownership on top of one provider, as ExternalDNS's {@code registry.Registry}: {@link #records} is
 * the zone's current endpoints labelled with their owner, and {@link #apply} writes planned changes
 * together with whatever keeps ownership in step. The reconciler depends on this interface only (the
 * provider stays behind it: nothing here hands it out);
 * {@link TxtRegistry} is the implementation, chosen by {@code meshdns.exposure.registry} through a
 * {@link RegistryFactory} bean, the same way providers are chosen.
 */
public interface Registry {

    /** What one read of the zones showed: the owner-labelled endpoints the plan compares against. */
    interface View {
        List<Endpoint> current();

        /** Ownership housekeeping the registry wants written even when the plan is empty (e.g. legacy claim upgrades). */
        List<RecordOp> upgrades();
    }

    /**
     * The operations of one planned change (one RRset with its ownership), kept together so that a
     * batch the provider refuses can be split down to the change that caused it.
     *
     * @param change the planned endpoint (for an ownership upgrade: the claimed RRset)
     */
    record Unit(String action, Endpoint change, List<RecordOp> ops) {
    }

    String ownerId();

    /** Old owner ids whose desired RRsets are taken over (meshdns.exposure.adopt-owners). */
    Set<String> adoptOwners();

    /** The target as printed in logs and metrics (the provider's description, no credentials). */
    String describe();

    /** The domain filter the provider declared (a webhook negotiates one); empty = every name. */
    Optional<DomainFilter> domainFilter();

    /** The provider-specific properties the provider stores and reads back ({@link io.meshdns.exposure.provider.Provider#storedProperties}). */
    Set<String> storedProperties();

    /** The provider's rewrite of desired endpoints before planning (ExternalDNS's AdjustEndpoints). */
    List<Endpoint> adjust(List<Endpoint> desired) throws ProviderException;

    /** ExternalDNS's Records: the current endpoints with ownership labels. */
    View records() throws ProviderException;

    /** Pure: the ownership housekeeping of the view, then the plan's changes, one unit per RRset. */
    List<Unit> units(View view, Changes changes);

    /** Pure: the ownership-only operations that move an adopted RRset to our owner id. */
    Unit adoption(View view, Endpoint adopted);

    /**
     * ExternalDNS's ApplyChanges: writes units computed against {@code view}, each unit's operations
     * (data and ownership) together where the provider can, so an interruption never separates them.
     */
    void apply(View view, List<Unit> units) throws ProviderException;
}
