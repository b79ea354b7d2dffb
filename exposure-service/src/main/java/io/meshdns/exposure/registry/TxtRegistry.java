package io.meshdns.exposure.registry;

import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.plan.Changes;
import io.meshdns.exposure.plan.DomainFilter;
import io.meshdns.exposure.provider.Provider;
import io.meshdns.exposure.provider.ProviderException;
import io.meshdns.exposure.provider.RRsetFolding;
import io.meshdns.exposure.provider.RecordLevelProvider;
import io.meshdns.exposure.provider.RecordOp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The TXT registry (reading the claims and writing them are two halves of one format, and the invariants below bind
 * both; the claim bookkeeping both halves use, whose claims are ours and what text a claim gets, is {@link Claims}): turns a provider's raw RRsets into owner-labelled endpoints for the plan, and
 * the plan's changes back into record operations that keep the ownership TXT records in step.
 * Both translations ({@link #view} and {@link #operations}) are pure; {@link #records} and
 * {@link #apply} add the provider I/O around them.
 *
 * <h2>Who owns an RRset</h2>
 * For data RRset (name, type) the claims are the ownership TXT strings at the typed name
 * ({@link TxtNameMapper#typedName}); only when there is none, those at the legacy untyped name.
 * <ul>
 *   <li>no claim: nobody's; the plan never touches it;</li>
 *   <li>an ExternalDNS claim (no targets label): that owner owns the whole RRset;</li>
 *   <li>meshdns claims (with targets label): each owner owns the claimed targets that are really
 *       in the RRset (data records are checked, so a half-applied change is repaired), targets no one
 *       claims are left as they are.</li>
 * </ul>
 *
 * <h2>How we write</h2>
 * When no other owner has a claim on the RRset we own it alone and replace it as a whole
 * (delete RRset + add). When others have claims we only add and delete our own records, so two
 * owners never erase each other; a record another owner also claims is never deleted. Our claim is
 * always replaced record by record (delete our old TXT string, add the new one), never as an RRset.
 * Data TXT RRsets are also written record by record, because legacy claims may share their name.
 * A provider that only replaces whole RRsets gets these operations folded into RRset changes
 * ({@link RRsetFolding}) against what it last returned.
 *
 * <h2>Encrypted claims</h2>
 * Claims are read and written through a {@link ClaimCodec}: plain, or AES-GCM-encrypted as ExternalDNS's
 * {@code --txt-encrypt-enabled} writes them. Claims are compared by what they say, not by their text, so a claim
 * sealed by ExternalDNS (its own gzip bytes, its nonce) stays as it is while it says what we want.
 *
 * <h2>The claim we write</h2>
 * Exactly ExternalDNS's: {@code heritage=external-dns,external-dns/owner=..,external-dns/resource=..}
 * (plus any other labels an existing claim of ours carries, kept as found), so a zone taken over
 * from ExternalDNS is left byte for byte as it is until a data record really changes. The share
 * form ({@code external-dns/targets=..}) is written only when the RRset really is shared: another
 * owner claims it, our claim there is already a share, or the desired endpoint asks for sharing
 * ({@link #SHARED_PROPERTY}).
 */
public final class TxtRegistry implements Registry {

    /** Types that several owners may share: each RR stands alone. CNAME is a singleton, TXT is free text. */
    public static final Set<String> SHAREABLE = Set.of("A", "AAAA", "SRV", "MX", "NS", "PTR");

    /**
     * Provider-specific property (DNSEndpoint {@code providerSpecific}, annotation {@code meshdns.io/shared})
     * declaring that several owners publish into this RRset: our claim is then written as a share
     * from the start, so the other owners can join.
     */
    public static final String SHARED_PROPERTY = "meshdns.io/shared";

    private final Provider provider;
    private final String ownerId;
    private final TxtNameMapper mapper;
    private final long claimTtl;

    public TxtRegistry(Provider provider, String ownerId, TxtNameMapper mapper, long claimTtl) {
        this(provider, ownerId, mapper, claimTtl, Set.of());
    }

    /**
     * @param adoptOwners meshdns.exposure.adopt-owners: old owner ids whose claims are replaced by ours
     *     when we write an RRset the plan gave us (the reconciler decides which: only desired ones)
     */
    public TxtRegistry(Provider provider, String ownerId, TxtNameMapper mapper, long claimTtl, Set<String> adoptOwners) {
        this(provider, ownerId, mapper, claimTtl, adoptOwners, ClaimCodec.PLAIN);
    }

    /** @param codec how claims are read and written: plain, or encrypted as ExternalDNS's --txt-encrypt-enabled does */
    public TxtRegistry(Provider provider, String ownerId, TxtNameMapper mapper, long claimTtl, Set<String> adoptOwners, ClaimCodec codec) {
        if (ownerId == null || ownerId.isBlank() || ownerId.contains(",") || ownerId.contains("=")) {
            throw new IllegalArgumentException("meshdns.exposure.owner-id must be non-empty and free of ',' and '='");
        }
        this.provider = provider;
        // the pure translations (view, operations) may run without a provider: then no property is stored
        this.storedProperties = provider == null ? Set.of() : Set.copyOf(provider.storedProperties());
        this.ownerId = ownerId;
        this.mapper = mapper;
        this.claimTtl = claimTtl;
        this.adoptOwners = Set.copyOf(adoptOwners);
        this.codec = codec;
        this.claims = new Claims(ownerId, adoptOwners, mapper, codec);
    }

    private final Set<String> adoptOwners;
    private final ClaimCodec codec;
    private final Claims claims;
    private final Set<String> storedProperties;

    @Override
    public Set<String> adoptOwners() {
        return adoptOwners;
    }

    /**
     * Pure: the claim-only operations that move an adopted RRset (a desired RRset whose claim names an
     * old owner, data unchanged) to our owner id; the data records are not touched.
     */
    @Override
    public Unit adoption(Registry.View any, Endpoint adopted) {
        View view = own(any);
        var ops = new ArrayList<RecordOp>();
        RRsetState state = claims.state(view, adopted);
        String typed = mapper.typedName(adopted.dnsName(), adopted.recordType());
        var old = claims.ourClaimTexts(state, true);
        String claim = claims.claimText(state, new OwnershipClaim(ownerId, adopted.resource(), Optional.empty(), new TreeMap<>()));
        var stale = old.stream().filter(t -> !t.equals(claim)).toList();
        // ours before the old owner's goes: never a moment with no claim on the data
        if (!old.contains(claim)) ops.add(addClaim(view.txtTtlByName(), typed, claim, stored(adopted)));
        if (!stale.isEmpty()) ops.add(new RecordOp.DeleteRecords(txt(typed, stale.toArray(String[]::new))));
        return new Unit("ADOPT", adopted, ops);
    }

    @Override
    public String ownerId() {
        return ownerId;
    }

    @Override
    public String describe() {
        return provider.describe();
    }

    @Override
    public Optional<DomainFilter> domainFilter() {
        return provider.domainFilter();
    }

    @Override
    public Set<String> storedProperties() {
        return storedProperties;
    }

    @Override
    public List<Endpoint> adjust(List<Endpoint> desired) throws ProviderException {
        return provider.adjust(desired);
    }

    /** What the registry learnt from one read of the zones. */
    /** @param txtTtlByName the TTL of each TXT RRset: a claim added to one takes it, so others' records there keep theirs */
    public record View(List<Endpoint> current, Map<Endpoint.Key, RRsetState> states, List<RecordOp> upgrades,
                       Map<String, List<String>> txtByName, Map<String, Long> txtTtlByName, List<Endpoint> raw) implements Registry.View {
    }

    private static View own(Registry.View view) {
        if (view instanceof View v) return v;
        throw new IllegalArgumentException("not a view of the TXT registry: " + view);
    }

    /** One data RRset with its claims (the text as found, so it can be deleted exactly). */
    public record RRsetState(Endpoint data, String typedName, String legacyName,
                             Map<String, OwnershipClaim> typedClaims, Map<String, OwnershipClaim> legacyClaims) {

        Map<String, OwnershipClaim> effectiveClaims() {
            return typedClaims.isEmpty() ? legacyClaims : typedClaims;
        }
    }

    @Override
    public View records() throws ProviderException {
        return view(provider.records());
    }

    /**
     * Applies units computed against {@code view}: record by record where the provider can (each unit,
     * a data RRset with its claim, kept in one UPDATE, so a crash between messages never leaves data
     * without its claim), else folded into RRset changes.
     */
    @Override
    public void apply(Registry.View view, List<Unit> units) throws ProviderException {
        var groups = units.stream().map(Unit::ops).filter(ops -> !ops.isEmpty()).toList();
        if (groups.isEmpty()) return;
        if (provider instanceof RecordLevelProvider records) {
            records.applyGroups(groups);
        } else {
            var ops = new ArrayList<RecordOp>();
            groups.forEach(ops::addAll);
            var changes = RRsetFolding.fold(own(view).raw(), ops, storedProperties);
            if (!changes.isEmpty()) provider.apply(changes);
        }
    }

    /** Applies operations (as one unit) against the zone as it is now (reads it first when the provider needs whole RRsets). */
    public void apply(List<RecordOp> ops) throws ProviderException {
        if (ops.isEmpty()) return;
        apply(provider instanceof RecordLevelProvider ? view(List.of()) : records(), List.of(new Unit("APPLY", ops.get(0).endpoint(), ops)));
    }

    /** Pure: raw RRsets → endpoints labelled with their owner (and our share of multi-owner RRsets). */
    public View view(List<Endpoint> raw) {
        var txtByName = new HashMap<String, List<String>>();
        var txtTtlByName = new HashMap<String, Long>();
        for (Endpoint e : raw) {
            if (e.recordType().equals("TXT")) {
                txtByName.computeIfAbsent(e.dnsName(), k -> new ArrayList<>()).addAll(e.targets());
                txtTtlByName.put(e.dnsName(), e.ttl());
            }
        }
        var current = new ArrayList<Endpoint>();
        var states = new TreeMap<Endpoint.Key, RRsetState>();
        var upgrades = new ArrayList<RecordOp>();
        for (Endpoint rrset : raw) {
            Endpoint data = rrset;
            if (rrset.recordType().equals("TXT")) {
                var plain = rrset.targets().stream().filter(t -> codec.decode(t).isEmpty()).toList();
                if (plain.isEmpty()) continue; // pure ownership RRset
                data = rrset.withTargets(plain);
            }
            String typed = mapper.typedName(data.dnsName(), data.recordType());
            String legacy = mapper.legacyName(data.dnsName());
            var state = new RRsetState(data, typed, legacy, claims.claimsAt(txtByName.get(typed)), claims.legacyClaimsAt(legacy, txtByName));
            for (String t : txtByName.getOrDefault(typed, List.of())) codec.warnIfUnreadable(typed, t);
            states.put(data.key(), state);
            current.addAll(owned(data, state));
            if (state.typedClaims().isEmpty()) {
                state.legacyClaims().forEach((text, claim) -> {
                    if (claim.owner().equals(ownerId)) {
                        // ExternalDNS's migration: create the typed claim next to the legacy one
                        upgrades.add(addClaim(txtTtlByName, typed, codec.encode(claim), stored(rrset)));
                    }
                });
            }
        }
        return new View(List.copyOf(current), states, List.copyOf(upgrades), txtByName, txtTtlByName, List.copyOf(raw));
    }

    private List<Endpoint> owned(Endpoint data, RRsetState state) {
        var found = state.effectiveClaims().values();
        if (found.isEmpty()) {
            return List.of(data.withLabels(Map.of()));
        }
        Optional<OwnershipClaim> exclusive = found.stream().filter(c -> !c.shared())
                .min((a, b) -> Boolean.compare(!a.owner().equals(ownerId), !b.owner().equals(ownerId)));
        var othersShared = found.stream().filter(c -> c.shared() && !c.owner().equals(ownerId)).toList();
        if (exclusive.isPresent() && (othersShared.isEmpty() || !exclusive.get().owner().equals(ownerId))) {
            OwnershipClaim c = exclusive.get();
            return List.of(data.withLabels(labels(c, false)));
        }
        var out = new ArrayList<Endpoint>();
        Set<String> present = new TreeSet<>(data.targets());
        Set<String> claimedByOthers = new TreeSet<>();
        othersShared.forEach(c -> claimedByOthers.addAll(c.targets().orElseThrow()));
        for (OwnershipClaim c : found) {
            List<String> part;
            if (c.shared()) {
                part = c.targets().orElseThrow().stream().filter(present::contains).toList();
            } else { // our legacy exclusive claim next to other owners' shares: the rest is ours
                part = present.stream().filter(t -> !claimedByOthers.contains(t)).toList();
            }
            // our claim alone is an ordinary owned RRset (TTL compared); shares exist once another owner claims
            boolean share = !c.owner().equals(ownerId) || !othersShared.isEmpty();
            if (!part.isEmpty()) out.add(data.withTargets(part).withLabels(labels(c, share)));
        }
        return out;
    }

    private static Map<String, String> labels(OwnershipClaim c, boolean shared) {
        var m = new TreeMap<String, String>();
        m.put(Endpoint.OWNER_LABEL, c.owner());
        if (!c.resource().isEmpty()) m.put(Endpoint.RESOURCE_LABEL, c.resource());
        if (shared) m.put(Endpoint.SHARED_LABEL, "true");
        return m;
    }

    /** Pure: the plan's changes → provider operations, given what {@link #view} saw. */
    public List<RecordOp> operations(View view, Changes changes) {
        var ops = new ArrayList<RecordOp>();
        units(view, changes).forEach(u -> ops.addAll(u.ops()));
        return ops;
    }

    /** Pure: the ownership upgrades of the view, then the plan's changes, one unit per RRset. */
    @Override
    public List<Unit> units(Registry.View any, Changes changes) {
        View view = own(any);
        var units = new ArrayList<Unit>();
        for (RecordOp up : view.upgrades()) units.add(new Unit("UPGRADE", up.endpoint(), List.of(up)));
        for (Endpoint e : changes.create()) {
            var ops = new ArrayList<RecordOp>();
            write(view, null, e, ops);
            units.add(new Unit("CREATE", e, ops));
        }
        for (int i = 0; i < changes.updateNew().size(); i++) {
            var ops = new ArrayList<RecordOp>();
            write(view, changes.updateOld().get(i), changes.updateNew().get(i), ops);
            units.add(new Unit("UPDATE", changes.updateNew().get(i), ops));
        }
        for (Endpoint e : changes.delete()) {
            var ops = new ArrayList<RecordOp>();
            delete(view, e, ops);
            units.add(new Unit("DELETE", e, ops));
        }
        return units;
    }

    /**
     * Crash-safe order, should the operations ever be split over several writes (an RRset too big for one
     * UPDATE, a provider writing in several transactions): our new claim first, then the data, then our
     * stale claim. An interruption then leaves at worst a claim without data (ours again on the next pass),
     * never data without a claim, which would be nobody's for good.
     */
    private void write(View view, Endpoint old, Endpoint wanted, List<RecordOp> ops) {
        RRsetState state = claims.state(view, wanted);
        // a stored property changed alone (CoreDNS's group): the records and our claim are written again with it
        boolean propertiesMoved = old != null && !stored(old).equals(stored(wanted));
        Set<String> othersTargets = claims.othersTargets(state);
        boolean othersPresent = state != null && state.effectiveClaims().values().stream()
                .anyMatch(c -> !claims.mine(c));
        var dataOps = new ArrayList<RecordOp>();
        Endpoint data = wanted.withLabels(Map.of());
        if (wanted.recordType().equals("TXT") || othersPresent) {
            Set<String> had = old == null ? Set.of() : new TreeSet<>(old.targets());
            var add = wanted.targets().stream().filter(t -> !had.contains(t) || old.ttl() != wanted.ttl() || propertiesMoved).toList();
            var remove = had.stream().filter(t -> !wanted.targets().contains(t) && !othersTargets.contains(t)).toList();
            if (!remove.isEmpty()) dataOps.add(new RecordOp.DeleteRecords(data.withTargets(remove)));
            if (!add.isEmpty()) dataOps.add(new RecordOp.AddRecords(data.withTargets(add)));
        } else {
            dataOps.add(new RecordOp.ReplaceRRset(data));
        }
        Optional<OwnershipClaim> ourClaim = state == null ? Optional.empty() : state.typedClaims().values().stream()
                .filter(claims::mine).findFirst();
        boolean share = SHAREABLE.contains(wanted.recordType()) && (othersPresent
                || ourClaim.map(OwnershipClaim::shared).orElse(false)
                || "true".equals(wanted.providerSpecific().get(SHARED_PROPERTY)));
        Optional<List<String>> claimed = share ? Optional.of(wanted.targets()) : Optional.empty();
        var keptLabels = ourClaim.map(c -> new TreeMap<>(c.otherLabels())).orElseGet(TreeMap::new);
        String claim = claims.claimText(state, new OwnershipClaim(ownerId, wanted.resource(), claimed, keptLabels));
        String typed = mapper.typedName(wanted.dnsName(), wanted.recordType());
        var stale = claims.ourClaimTexts(state, true).stream().filter(t -> !t.equals(claim)).toList();
        if (!claims.ourClaimTexts(state, true).contains(claim) || propertiesMoved) {
            ops.add(addClaim(view.txtTtlByName(), typed, claim, stored(wanted)));
        }
        ops.addAll(dataOps);
        if (!stale.isEmpty()) ops.add(new RecordOp.DeleteRecords(txt(typed, stale.toArray(String[]::new))));
    }

    /** Data first, then its claims: an interruption leaves a claim without data, never data without a claim. */
    private void delete(View view, Endpoint ours, List<RecordOp> ops) {
        RRsetState state = claims.state(view, ours);
        Set<String> othersTargets = claims.othersTargets(state);
        boolean othersPresent = state != null && state.effectiveClaims().values().stream()
                .anyMatch(c -> !claims.mine(c));
        Endpoint data = ours.withLabels(Map.of());
        if (ours.recordType().equals("TXT") || othersPresent) {
            var remove = ours.targets().stream().filter(t -> !othersTargets.contains(t)).toList();
            if (!remove.isEmpty()) ops.add(new RecordOp.DeleteRecords(data.withTargets(remove)));
        } else {
            ops.add(new RecordOp.DeleteRRset(data));
        }
        if (state != null) {
            var typed = claims.ourClaimTexts(state, true);
            if (!typed.isEmpty()) ops.add(new RecordOp.DeleteRecords(txt(state.typedName(), typed.toArray(String[]::new))));
            // the legacy claim covers every type at the name: remove it only with the last of our RRsets there
            var legacy = claims.ourClaimTexts(state, false);
            boolean lastAtName = view.states().values().stream().noneMatch(s -> s != state
                    && s.data().dnsName().equals(ours.dnsName()) && s.legacyClaims().values().stream().anyMatch(claims::mine));
            if (!legacy.isEmpty() && lastAtName) ops.add(new RecordOp.DeleteRecords(txt(state.legacyName(), legacy.toArray(String[]::new))));
        }
    }

    /** The provider-specific properties of {@code e} the provider stores: its claim carries them too, as ExternalDNS's does. */
    private Map<String, String> stored(Endpoint e) {
        return e.providerSpecific(storedProperties);
    }

    /**
     * Adds a claim at {@code name} with the TTL of the TXT RRset already there, if any: an RRset has one TTL
     * (RFC 2181 5.2), so a server such as BIND9 would otherwise move the TTL of everyone's records there.
     */
    private RecordOp addClaim(Map<String, Long> txtTtlByName, String name, String claim, Map<String, String> properties) {
        Long ttl = txtTtlByName.get(Endpoint.normalizeName(name));
        Endpoint e = txt(name, claim).withProviderSpecific(properties);
        return new RecordOp.AddRecords(ttl == null ? e : e.withTtl(ttl));
    }

    private Endpoint txt(String name, String... texts) {
        return new Endpoint(name, "TXT", List.of(texts), claimTtl, Map.of(), "");
    }
}
