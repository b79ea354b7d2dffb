package io.meshdns.dns.kubernetes;

import io.meshdns.dns.base.Names;
import io.meshdns.dns.snapshot.MeshIndex;

import io.meshdns.dns.kubernetes.Contributions.Emitted;
import io.meshdns.dns.snapshot.SourceContent;
import io.meshdns.dns.snapshot.ZoneContent;
import io.meshdns.dns.snapshot.ZonePatch;
import io.meshdns.model.Catalog;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.Kind;
import io.meshdns.model.ObjectRef;
import org.xbill.DNS.AAAARecord;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.TXTRecord;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Turns a {@link Catalog} into DNS zone contents, following the Kubernetes DNS specification
 * (kubernetes/dns docs/specification.md), the MCS DNS specification (KEP-1645) for clusterset.local, and
 * the node's multi-cluster policy. Pure: no I/O, no clock, no randomness; the same catalog and settings
 * always give the same records. Answer-time behaviour (placeholder, insecure pod names, spreading,
 * autopath, chasing ExternalName targets) lives in {@link MeshAnswerPolicy}.
 *
 * <p>This class is the incremental bookkeeping only, the same for every kind: which entries feed which contributor,
 * and what each contributed. The records come from pure builders ({@link KindRecords}, one class per builder, put in
 * compile order by {@link MeshKinds}) keyed by the catalog kinds they read, each filling one {@link Contribution} per contributor from
 * {@link CompileInputs} and the entries feeding it; {@link MeshIndexBuilder} turns the contributions into the index.
 *
 * <p>Incremental: {@link #compile} compiles a whole catalog and remembers each contributor's records
 * (a contributor is one service name across clusters, one pod, one ServiceEntry host); {@link #update} then
 * recompiles only the contributors a catalog change touches and returns {@link ZonePatch}es naming the
 * owners whose records changed. One changed service costs that service, not the catalog.
 *
 * <p>Zones produced:
 * <ul>
 *   <li>{@code <cluster-domain>} (authoritative): services, endpoints, SRV, verified pods, ServiceEntry hosts
 *       under the cluster domain, {@code dns-version} TXT.</li>
 *   <li>{@code <clusterset-domain>} (authoritative): MCS names.</li>
 *   <li>one authoritative zone per placeholder ServiceEntry suffix.</li>
 *   <li>the non-authoritative overlay (exact names; a miss forwards): PTR for local ClusterIPs and endpoints,
 *       and ServiceEntry hosts outside our domains. A wildcard host outside our domains goes to
 *       {@link MeshIndex#wildcardHosts()} instead.</li>
 * </ul>
 */
public final class MeshZoneCompiler {
    static final String DNS_SCHEMA_VERSION = "1.1.0";
    /** MCS DNS specification (KEP-1645) section 1: the schema version {@code dns-version.<clusterset>} answers (2.2). */
    static final String MCS_DNS_SCHEMA_VERSION = "1.0.0";
    private static final Name IN_ADDR_ARPA = Names.absolute("in-addr.arpa");
    private static final Name IP6_ARPA = Names.absolute("ip6.arpa");
    private static final String SOA_CONTRIBUTOR = "soa";
    private static final String STATIC_CONTRIBUTOR = "static";

    private final MeshSettings settings;
    private State state; // null before the first compile; only touched under this compiler's lock

    public MeshZoneCompiler(MeshSettings settings) {
        this.settings = settings;
    }

    public MeshSettings settings() {
        return settings;
    }

    /** Compiles {@code catalog} whole, forgetting any earlier state. */
    public synchronized MeshZones compile(Catalog catalog) {
        state = new State(catalog);
        state.compileAll(catalog);
        return new MeshZones(state.fullContent(), state.last.index(), state.last.warnings());
    }

    /**
     * Moves from the last compiled catalog to {@code next}, given the refs that differ between them (a
     * delta's upserts and deletes). Recompiles only the service names, pods and ServiceEntries those refs
     * touch. Falls back to a whole compile (patches null) before any compile or when what every name depends
     * on changed (the local cluster, the gateways, the stale clusters being dropped).
     */
    public synchronized MeshUpdate update(Catalog next, Collection<ObjectRef> changed) {
        if (state == null || !state.context.equals(CompileInputs.Context.of(settings, next))) {
            MeshZones whole = compile(next);
            return new MeshUpdate(null, whole.zones(), whole.index(), whole.warnings());
        }
        state.apply(next, changed);
        return new MeshUpdate(state.patches(), null, state.last.index(), state.last.warnings());
    }

    /**
     * A live view of everything compiled so far, for the snapshot store (read when a zone this compiler
     * shares with another source must be compiled whole).
     */
    public SourceContent content() {
        return new SourceContent() {
            @Override
            public Set<Name> origins() {
                synchronized (MeshZoneCompiler.this) {
                    return state == null ? Set.of() : Set.copyOf(state.authoritative);
                }
            }

            @Override
            public ZoneContent zone(Name origin) {
                synchronized (MeshZoneCompiler.this) {
                    if (state == null) return null;
                    if (origin == null) {
                        List<Record> records = state.table.all(null);
                        return records.isEmpty() ? null : new ZoneContent(Name.root, records, false);
                    }
                    return state.authoritative.contains(origin) ? new ZoneContent(origin, state.table.all(origin), true) : null;
                }
            }

            @Override
            public Set<Name> overlayOwners() {
                synchronized (MeshZoneCompiler.this) {
                    return state == null ? Set.of() : Set.copyOf(state.table.owners(null));
                }
            }
        };
    }

    /**
     * The result of {@link #update}: patches (null when the catalog was compiled whole, then {@code zones} holds
     * everything), the index for answer-time policies, and warnings about the entries just compiled.
     */
    public record MeshUpdate(List<ZonePatch> patches, List<ZoneContent> zones, MeshIndex index, List<String> warnings) {
        public boolean whole() {
            return patches == null;
        }
    }

    /** What one {@link State#apply} changed: the owners touched (zone key → owners), warnings, the new index. */
    private record Operation(Map<Name, Set<Name>> touched, List<String> warnings, MeshIndex index) {
    }

    /**
     * The incremental bookkeeping, the same for every kind: which catalog entries feed which contributor (one
     * {@link ContributorFeeds} per builder of {@link MeshKinds}), each contributor's records ({@link Contributions})
     * and index entries, and the index builder. Everything an operation changes travels in its arguments and its
     * {@link Operation}.
     */
    private final class State {
        Catalog catalog = Catalog.empty();
        final CompileInputs.Context context;
        final CompileInputs in;
        /** Authoritative zone keys, in output order. */
        final Set<Name> authoritative = new LinkedHashSet<>();

        final Contributions table = new Contributions();
        /** Each contributor's index entries (its records are in {@link #table}). */
        final Map<String, Contribution> indexed = new HashMap<>();
        final MeshIndexBuilder index = new MeshIndexBuilder();
        final IndexCounts counts = new IndexCounts();
        /** One per builder, in {@link MeshKinds#IN_COMPILE_ORDER}. */
        final List<ContributorFeeds<?>> feeds = new ArrayList<>();
        final Map<Kind, ContributorFeeds<?>> feedsByKind = new EnumMap<>(Kind.class);
        /** Wildcard hosts outside our zones, by contributor id (so in host order). */
        final Map<String, List<Record>> wildcardsByContributor = new TreeMap<>();
        Operation last;

        State(Catalog catalog) {
            this.context = CompileInputs.Context.of(settings, catalog);
            Set<Name> suffixes = new LinkedHashSet<>();
            if (settings.placeholder().enabled()) suffixes.addAll(settings.placeholder().serviceEntrySuffixes());
            this.in = new CompileInputs(settings, context, suffixes);
            authoritative.add(in.zone);
            authoritative.add(in.clusterset);
            authoritative.addAll(suffixes);
            for (KindRecords<?> builder : MeshKinds.IN_COMPILE_ORDER) {
                ContributorFeeds<?> f = new ContributorFeeds<>(builder);
                feeds.add(f);
                for (Kind kind : builder.kinds()) feedsByKind.put(kind, f);
            }
        }

        void compileAll(Catalog initial) {
            List<ObjectRef> all = new ArrayList<>(initial.entries().keySet());
            java.util.Collections.sort(all); // catalog order is a hash order: compile in a stable one
            apply(initial, all);
            List<Emitted> versions = List.of(
                    new Emitted(in.zone, new TXTRecord(Names.under("dns-version", in.zone), DClass.IN, in.ttl, DNS_SCHEMA_VERSION)),
                    new Emitted(in.clusterset, new TXTRecord(Names.under("dns-version", in.clusterset), DClass.IN, in.ttl,
                            MCS_DNS_SCHEMA_VERSION)));
            table.replace(STATIC_CONTRIBUTOR, versions, new LinkedHashMap<>());
        }

        /** Moves to {@code next}: only the contributors {@code changed} touches are recompiled, builder by builder. */
        void apply(Catalog next, Collection<ObjectRef> changed) {
            Catalog previous = catalog;
            catalog = next;
            MeshIndexBuilder.Edit edit = index.edit();
            Map<Name, Set<Name>> touched = new LinkedHashMap<>();
            List<String> warnings = new ArrayList<>();
            for (ObjectRef ref : changed) {
                CatalogEntry before = previous.get(ref);
                CatalogEntry after = next.get(ref);
                if (before != null && before.equals(after)) continue;
                if (before != null) track(before, false, edit);
                if (after != null) track(after, true, edit);
            }
            boolean wildcardsChanged = false;
            for (ContributorFeeds<?> f : feeds) wildcardsChanged |= compileTouched(f, edit, touched, warnings);
            if (wildcardsChanged) edit.wildcardHosts(wildcardHosts());
            long serial = next.version() & 0xffffffffL;
            List<Emitted> soas = new ArrayList<>();
            for (Name origin : authoritative) soas.add(new Emitted(origin, soa(origin, serial)));
            table.replace(SOA_CONTRIBUTOR, soas, touched);
            last = new Operation(touched, warnings, edit.build(next.version()));
        }

        /** Notes which contributors an entry feeds, and counts what it tells the index directly. */
        private void track(CatalogEntry e, boolean add, MeshIndexBuilder.Edit edit) {
            ContributorFeeds<?> f = feedsByKind.get(e.ref().kind());
            f.track(e, add);
            for (IndexCounts.Fact fact : f.builder.indexFacts(e, in)) counts.count(fact, add, edit);
        }

        /** Rebuilds every contributor of {@code f} touched so far; true when wildcard hosts may have changed. */
        private <K extends Comparable<K>> boolean compileTouched(ContributorFeeds<K> f, MeshIndexBuilder.Edit edit,
                                                                 Map<Name, Set<Name>> touched, List<String> warnings) {
            boolean wildcards = false;
            for (K key : f.drainTouched()) {
                Contribution c = new Contribution(warnings);
                f.builder.build(key, f.entries(key, catalog), in, n -> edit.serviceNames.get(n) != null, c);
                wildcards |= file(f.builder.id(key), c, edit, touched);
            }
            return wildcards;
        }

        /**
         * Files {@code c} as contributor {@code id}'s whole output: its records into the table, its index entries into
         * {@code edit}. A Service name appearing or going away touches the contributors it shadows. True when the
         * contributor had or has wildcard hosts.
         */
        private boolean file(String id, Contribution c, MeshIndexBuilder.Edit edit, Map<Name, Set<Name>> touched) {
            table.replace(id, c.records, touched);
            c.records.clear(); // the table holds them; only the index part is kept here
            Contribution before = c.isEmpty() ? indexed.remove(id) : indexed.put(id, c);
            edit.replace(before, c);
            if (c.placeholderAddresses != null) edit.placeholderAddresses(c.placeholderAddresses);
            Name oldName = before == null ? null : before.serviceName;
            if (!Objects.equals(oldName, c.serviceName)) {
                if (oldName != null) {
                    edit.serviceNames.remove(oldName);
                    touchShadowed(oldName);
                }
                if (c.serviceName != null) {
                    edit.serviceNames.put(c.serviceName, Boolean.TRUE);
                    touchShadowed(c.serviceName);
                }
            }
            boolean hadWildcards = c.wildcards.isEmpty() ? wildcardsByContributor.remove(id) != null
                    : wildcardsByContributor.put(id, List.copyOf(c.wildcards)) != null;
            return hadWildcards || !c.wildcards.isEmpty();
        }

        private void touchShadowed(Name serviceName) {
            for (ContributorFeeds<?> f : feeds) touchShadowed(f, serviceName);
        }

        private <K extends Comparable<K>> void touchShadowed(ContributorFeeds<K> f, Name serviceName) {
            K key = f.builder.shadowedBy(serviceName);
            if (key != null) f.touch(key);
        }

        /** Wildcard hosts outside our zones, by parent. */
        private Map<Name, List<Record>> wildcardHosts() {
            Map<Name, List<Record>> wildcards = new HashMap<>();
            wildcardsByContributor.values().forEach(list -> {
                for (Record r : list) wildcards.computeIfAbsent(new Name(r.getName(), 1), k -> new ArrayList<>()).add(r);
            });
            wildcards.replaceAll((k, v) -> List.copyOf(new LinkedHashSet<>(v)));
            return Map.copyOf(wildcards);
        }

        /** The owners the last operation touched, as patches: each owner with all its records now. */
        private List<ZonePatch> patches() {
            List<ZonePatch> patches = new ArrayList<>();
            last.touched().forEach((zoneKey, owners) -> {
                Map<Name, List<Record>> records = new LinkedHashMap<>();
                for (Name owner : owners) records.put(owner, table.at(zoneKey, owner));
                patches.add(new ZonePatch(zoneKey, records));
            });
            return patches;
        }

        /** Everything, as zone contents: the authoritative zones, then the overlay by reverse zone and by host. */
        List<ZoneContent> fullContent() {
            List<ZoneContent> zones = new ArrayList<>();
            for (Name origin : authoritative) zones.add(new ZoneContent(origin, table.all(origin), true));
            List<Record> reverse4 = new ArrayList<>();
            List<Record> reverse6 = new ArrayList<>();
            Map<Name, List<Record>> hosts = new TreeMap<>();
            for (Record r : table.all(null)) {
                if (r.getName().subdomain(IN_ADDR_ARPA)) reverse4.add(r);
                else if (r.getName().subdomain(IP6_ARPA)) reverse6.add(r);
                else hosts.computeIfAbsent(r.getName(), k -> new ArrayList<>()).add(r);
            }
            if (!reverse4.isEmpty()) zones.add(new ZoneContent(IN_ADDR_ARPA, reverse4, false));
            if (!reverse6.isEmpty()) zones.add(new ZoneContent(IP6_ARPA, reverse6, false));
            hosts.forEach((host, records) -> zones.add(new ZoneContent(host, records, false)));
            return zones;
        }
    }

    private SOARecord soa(Name origin, long serial) {
        Name host = Names.under("ns.dns", origin);
        Name admin = Names.under("hostmaster", origin);
        long ttl = settings.ttl();
        return new SOARecord(origin, DClass.IN, ttl, host == null ? origin : host, admin == null ? origin : admin,
                serial, 7200, 1800, 86400, ttl);
    }

    static Record address(Name owner, long ttl, InetAddress ip) {
        return ip instanceof Inet6Address
                ? new AAAARecord(owner, DClass.IN, ttl, ip)
                : new ARecord(owner, DClass.IN, ttl, ip);
    }
}
