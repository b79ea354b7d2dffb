package io.meshdns.exposure.registry;

import io.meshdns.exposure.endpoint.Endpoint;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The claim bookkeeping of the {@link TxtRegistry}: whose claims count as ours (our owner id and the adopted old ones),
 * the claims found at a name (decoded through the {@link ClaimCodec}, legacy names as ExternalDNS reads them), an RRset's
 * claims, the targets other owners claim, and the text of a claim we want (the one already there when it says the same).
 * Pure.
 */
final class Claims {

    private final String ownerId;
    private final Set<String> adoptOwners;
    private final TxtNameMapper mapper;
    private final ClaimCodec codec;

    Claims(String ownerId, Set<String> adoptOwners, TxtNameMapper mapper, ClaimCodec codec) {
        this.ownerId = ownerId;
        this.adoptOwners = Set.copyOf(adoptOwners);
        this.mapper = mapper;
        this.codec = codec;
    }

    /** Our claim, or an adopted old owner's claim on an RRset we write. */
    boolean mine(OwnershipClaim c) {
        return c.owner().equals(ownerId) || adoptOwners.contains(c.owner());
    }

    /** Claims at a legacy (untyped) name; none at a name that is some RRset's typed claim name, as in ExternalDNS. */
    Map<String, OwnershipClaim> legacyClaimsAt(String legacyName, Map<String, List<String>> txtByName) {
        return mapper.isTypedName(legacyName) ? Map.of() : claimsAt(txtByName.get(legacyName));
    }

    Map<String, OwnershipClaim> claimsAt(List<String> texts) {
        if (texts == null) return Map.of();
        var m = new TreeMap<String, OwnershipClaim>();
        for (String t : texts) codec.decode(t).ifPresent(c -> m.put(t, c));
        return m;
    }

    /**
     * The text for a claim we want at an RRset: the text of our claim already there saying the same (plain or
     * encrypted, whatever nonce it was sealed with), so an unchanged claim is never rewritten; else a new encoding.
     */
    String claimText(TxtRegistry.RRsetState state, OwnershipClaim wanted) {
        if (state != null) {
            for (var e : state.typedClaims().entrySet()) {
                if (mine(e.getValue()) && e.getValue().serialize().equals(wanted.serialize())) return e.getKey();
            }
        }
        return codec.encode(wanted);
    }

    /** The RRset's state; for an RRset that is not in the zone (yet), the claims that may still be there. */
    TxtRegistry.RRsetState state(TxtRegistry.View view, Endpoint e) {
        TxtRegistry.RRsetState known = view.states().get(e.key());
        if (known != null) return known;
        String typed = mapper.typedName(e.dnsName(), e.recordType());
        String legacy = mapper.legacyName(e.dnsName());
        return new TxtRegistry.RRsetState(e.withTargets(List.of()), typed, legacy,
                claimsAt(view.txtByName().get(typed)), legacyClaimsAt(legacy, view.txtByName()));
    }

    Set<String> othersTargets(TxtRegistry.RRsetState state) {
        var s = new TreeSet<String>();
        if (state == null) return s;
        for (OwnershipClaim c : state.effectiveClaims().values()) {
            if (!mine(c)) s.addAll(c.targets().orElse(state.data().targets()));
        }
        return s;
    }

    List<String> ourClaimTexts(TxtRegistry.RRsetState state, boolean typed) {
        if (state == null) return List.of();
        var claims = typed ? state.typedClaims() : state.legacyClaims();
        var out = new LinkedHashSet<String>();
        claims.forEach((text, c) -> {
            if (mine(c)) out.add(text);
        });
        return List.copyOf(out);
    }
}
