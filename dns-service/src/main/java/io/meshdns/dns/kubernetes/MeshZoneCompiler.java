package io.meshdns.dns.kubernetes;

import io.meshdns.dns.base.Names;
import io.meshdns.dns.snapshot.MeshIndex;

import io.meshdns.dns.kubernetes.Contributions.Emitted;
import io.meshdns.dns.snapshot.SourceContent;
import io.meshdns.dns.snapshot.ZoneContent;
import io.meshdns.dns.snapshot.ZonePatch;
import io.meshdns.model.Catalog;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.ClusterStatus;
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
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Turns a {@link Catalog} into DNS zone contents, following the Kubernetes DNS specification
 * (kubernetes/dns docs/specification.md), the MCS DNS specification (KEP-1645) for clusterset.local, and
 * the node's multi-cluster policy. Pure: no I/O, no clock, no randomness; the same catalog and settings
 * always give the same records. Answer-time behaviour (placeholder, insecure pod names, spreading,
 * autopath, chasing ExternalName targets) lives in {@link MeshAnswerPolicy}.
 *
 * <p>This class is the incremental bookkeeping only: which entries feed which contributor, and what each
 * contributed. The records themselves come from pure builders, one per name family ({@link ClusterDomainRecords},
 * {@link ClustersetRecords}, {@link PodRecords}, {@link ServiceEntryRecords}), each filling one {@link Contribution}
 * from {@link CompileInputs} and its entries; {@link MeshIndexBuilder} turns the contributions into the index.
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
        if (state == null || !state.context.equals(context(next))) {
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

    /** Everything a name's records depend on besides its own entries: when it changes, everything is recompiled. */
    private List<Object> context(Catalog catalog) {
        String local = localCluster(catalog);
        Map<String, List<InetAddress>> gateways = new HashMap<>();
        for (ClusterStatus c : catalog.clusters()) {
            List<InetAddress> ips = new ArrayList<>();
            for (String g : c.gatewayAddresses()) {
                InetAddress ip = Names.ip(g);
                if (ip != null) ips.add(ip);
            }
            gateways.put(c.name(), ips);
        }
        gateways.putAll(settings.gatewayOverrides());
        Set<String> dropped = new TreeSet<>();
        if (settings.dropStaleClusters()) {
            for (ClusterStatus c : catalog.clusters()) {
                if (c.stale() && !c.name().equals(local)) dropped.add(c.name());
            }
        }
        Set<String> unhealthy = new TreeSet<>();
        if (settings.dropUnhealthyClusters()) {
            for (ClusterStatus c : catalog.clusters()) {
                boolean down = c.stale() || Boolean.FALSE.equals(c.gatewayHealthy());
                if (down && !c.name().equals(local)) unhealthy.add(c.name());
            }
        }
        return java.util.Arrays.asList(local, gateways, dropped, unhealthy);
    }

    private static String groupKey(String namespace, String name) {
        return namespace + "/" + name;
    }

    /** The service name an entry belongs to, or null (namespaces, pods, ServiceEntries, slices without a service). */
    private static String groupOf(CatalogEntry e) {
        if (e instanceof CatalogEntry.Service s) return groupKey(s.namespace(), s.name());
        if (e instanceof CatalogEntry.ServiceImport si) return groupKey(si.namespace(), si.name());
        if (e instanceof CatalogEntry.EndpointSlice es && es.serviceName() != null) return groupKey(es.namespace(), es.serviceName());
        return null;
    }

    /** What one {@link State#apply} changed: the owners touched (zone key → owners), warnings, the new index. */
    private record Operation(Map<Name, Set<Name>> touched, List<String> warnings, MeshIndex index) {
    }

    /**
     * The incremental bookkeeping: which catalog entries feed which contributor, each contributor's records
     * ({@link Contributions}) and index entries, and the index builder. Records come from the pure builders
     * ({@link ClusterDomainRecords}, {@link ClustersetRecords}, {@link PodRecords}, {@link ServiceEntryRecords});
     * everything an operation changes travels in its arguments and its {@link Operation}.
     */
    private final class State {
        Catalog catalog = Catalog.empty();
        final List<Object> context;
        final CompileInputs in;
        /** Authoritative zone keys, in output order. */
        final Set<Name> authoritative = new LinkedHashSet<>();

        final Contributions table = new Contributions();
        /** Each contributor's index entries (its records are in {@link #table}). */
        final Map<String, Contribution> indexed = new HashMap<>();
        final MeshIndexBuilder index = new MeshIndexBuilder();
        final Map<String, Set<ObjectRef>> groupMembers = new HashMap<>();
        final Map<String, Integer> namespaceRefs = new HashMap<>();
        final Map<InetAddress, TreeMap<ObjectRef, String>> podIps = new HashMap<>();
        final Map<String, Set<ObjectRef>> serviceEntriesByHost = new HashMap<>();
        final Map<String, List<Record>> wildcardsByHost = new TreeMap<>();
        Operation last;

        State(Catalog catalog) {
            this.context = context(catalog);
            @SuppressWarnings("unchecked")
            Map<String, List<InetAddress>> gw = (Map<String, List<InetAddress>>) context.get(1);
            Set<Name> suffixes = new LinkedHashSet<>();
            if (settings.placeholder().enabled()) suffixes.addAll(settings.placeholder().serviceEntrySuffixes());
            @SuppressWarnings("unchecked")
            Set<String> dropped = (Set<String>) context.get(2);
            @SuppressWarnings("unchecked")
            Set<String> unhealthy = (Set<String>) context.get(3);
            this.in = new CompileInputs(settings, (String) context.get(0), gw, suffixes, dropped, unhealthy);
            authoritative.add(in.zone);
            authoritative.add(in.clusterset);
            authoritative.addAll(suffixes);
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

        /** Moves to {@code next}: only what {@code changed} touches is recompiled. */
        void apply(Catalog next, Collection<ObjectRef> changed) {
            Catalog previous = catalog;
            catalog = next;
            MeshIndexBuilder.Edit edit = index.edit();
            Map<Name, Set<Name>> touched = new LinkedHashMap<>();
            List<String> warnings = new ArrayList<>();
            Set<String> groups = new TreeSet<>();
            Set<ObjectRef> pods = new TreeSet<>();
            Set<String> hosts = new TreeSet<>();
            for (ObjectRef ref : changed) {
                CatalogEntry before = previous.get(ref);
                CatalogEntry after = next.get(ref);
                if (before != null && before.equals(after)) continue;
                if (before != null) track(before, false, edit, groups, pods, hosts);
                if (after != null) track(after, true, edit, groups, pods, hosts);
            }
            for (String key : groups) compileGroup(key, edit, touched, warnings, hosts);
            for (ObjectRef ref : pods) {
                Contribution c = new Contribution(warnings);
                if (next.get(ref) instanceof CatalogEntry.Pod p) PodRecords.build(in, p, c);
                file("pod " + ref, c, edit, touched);
            }
            if (!hosts.isEmpty()) {
                for (String host : hosts) compileHost(host, edit, touched, warnings);
                edit.wildcardHosts(wildcardHosts());
            }
            long serial = next.version() & 0xffffffffL;
            List<Emitted> soas = new ArrayList<>();
            for (Name origin : authoritative) soas.add(new Emitted(origin, soa(origin, serial)));
            table.replace(SOA_CONTRIBUTOR, soas, touched);
            last = new Operation(touched, warnings, edit.build(next.version()));
        }

        /** Files {@code c} as {@code key}'s whole output: its records into the table, its index entries into {@code edit}. */
        private void file(String key, Contribution c, MeshIndexBuilder.Edit edit, Map<Name, Set<Name>> touched) {
            table.replace(key, c.records, touched);
            c.records.clear(); // the table holds them; only the index part is kept here
            Contribution before = c.isEmpty() ? indexed.remove(key) : indexed.put(key, c);
            edit.replace(before, c);
        }

        /** Notes which contributors an entry feeds, and what it adds to or takes from the index directly. */
        private void track(CatalogEntry e, boolean add, MeshIndexBuilder.Edit edit, Set<String> groups, Set<ObjectRef> pods,
                           Set<String> hosts) {
            String group = groupOf(e);
            if (group != null) {
                if (add) {
                    groupMembers.computeIfAbsent(group, k -> new HashSet<>()).add(e.ref());
                } else {
                    Set<ObjectRef> members = groupMembers.get(group);
                    if (members != null && members.remove(e.ref()) && members.isEmpty()) groupMembers.remove(group);
                }
                groups.add(group);
            }
            int delta = add ? 1 : -1;
            if (e instanceof CatalogEntry.Namespace n) countNamespace(n.name(), delta, edit);
            if (e instanceof CatalogEntry.Service s) countNamespace(s.namespace(), delta, edit);
            if (e instanceof CatalogEntry.Pod p) {
                pods.add(p.ref());
                podAddresses(p, add, edit);
            }
            if (e instanceof CatalogEntry.ServiceEntry se) {
                for (String raw : se.hosts()) {
                    String host = ServiceEntryRecords.key(raw);
                    hosts.add(host);
                    if (add) {
                        serviceEntriesByHost.computeIfAbsent(host, k -> new HashSet<>()).add(se.ref());
                    } else {
                        Set<ObjectRef> refs = serviceEntriesByHost.get(host);
                        if (refs != null && refs.remove(se.ref()) && refs.isEmpty()) serviceEntriesByHost.remove(host);
                    }
                }
            }
        }

        private void countNamespace(String name, int delta, MeshIndexBuilder.Edit edit) {
            String ns = name.toLowerCase(Locale.ROOT);
            int n = namespaceRefs.getOrDefault(ns, 0) + delta;
            if (n <= 0) {
                namespaceRefs.remove(ns);
                edit.namespaces.remove(ns);
            } else {
                namespaceRefs.put(ns, n);
                edit.namespaces.put(ns, Boolean.TRUE);
            }
        }

        /** Client IP → namespace (autopath, exportTo) from the local cluster's pods; the first pod by ref wins a shared IP. */
        private void podAddresses(CatalogEntry.Pod p, boolean add, MeshIndexBuilder.Edit edit) {
            if (!in.isLocal(p.cluster())) return;
            for (String text : p.ips()) {
                InetAddress ip = Names.ip(text);
                if (ip == null) continue;
                TreeMap<ObjectRef, String> owners = podIps.computeIfAbsent(ip, k -> new TreeMap<>());
                if (add) owners.put(p.ref(), p.namespace().toLowerCase(Locale.ROOT));
                else owners.remove(p.ref());
                if (owners.isEmpty()) {
                    podIps.remove(ip);
                    edit.podNamespaceByIp.remove(ip);
                } else {
                    edit.podNamespaceByIp.put(ip, owners.firstEntry().getValue());
                }
            }
        }

        /** Recompiles one service name; a Service appearing or going away re-checks the ServiceEntry host it shadows. */
        private void compileGroup(String key, MeshIndexBuilder.Edit edit, Map<Name, Set<Name>> touched, List<String> warnings,
                                  Set<String> hosts) {
            ServiceGroup g = null;
            for (ObjectRef ref : groupMembers.getOrDefault(key, Set.of())) {
                CatalogEntry e = catalog.get(ref);
                if (e == null || in.dropped.contains(e.cluster())) continue;
                if (g == null) {
                    int slash = key.indexOf('/');
                    g = new ServiceGroup(key.substring(0, slash), key.substring(slash + 1));
                }
                if (e instanceof CatalogEntry.Service s) {
                    g.byCluster.put(s.cluster(), s);
                } else if (e instanceof CatalogEntry.EndpointSlice es) {
                    g.slicesByCluster.computeIfAbsent(es.cluster(), k -> new ArrayList<>()).add(es);
                } else if (e instanceof CatalogEntry.ServiceImport si) {
                    g.imports.put(si.cluster(), si);
                }
            }
            Contribution c = new Contribution(warnings);
            if (g != null) {
                g.leaveOut(ClusterHealthPolicy.leftOut(in.unhealthy, g.clusters()));
                for (List<CatalogEntry.EndpointSlice> slices : g.slicesByCluster.values()) {
                    slices.sort((a, b) -> a.name().compareTo(b.name()));
                }
                buildGroup(g, c);
                c.nodeZone = nodeZone(g);
            }
            if (key.equals(settings.placeholder().service())) edit.placeholderAddresses(placeholderAddresses(g));
            Contribution before = indexed.get("service " + key);
            Name oldName = before == null ? null : before.serviceName;
            file("service " + key, c, edit, touched);
            if (!java.util.Objects.equals(oldName, c.serviceName)) {
                if (oldName != null) {
                    edit.serviceNames.remove(oldName);
                    hosts.add(ServiceEntryRecords.key(oldName.toString()));
                }
                if (c.serviceName != null) {
                    edit.serviceNames.put(c.serviceName, Boolean.TRUE);
                    hosts.add(ServiceEntryRecords.key(c.serviceName.toString()));
                }
            }
        }

        /** The zone this group's local endpoints on this node carry, when the zone is to be learned (no setting). */
        private String nodeZone(ServiceGroup g) {
            MeshSettings.Locality l = settings.locality();
            if (l.order() != MeshSettings.Locality.Order.ZONE || l.zone() != null || l.nodeName() == null) return null;
            for (String cluster : g.slicesByCluster.keySet()) {
                if (!in.isLocal(cluster)) continue;
                String zone = g.zoneOfNode(cluster, l.nodeName());
                if (zone != null) return zone;
            }
            return null;
        }

        /**
         * The placeholder Service's ClusterIPs (Slime's global-sidecar): the local copy's, else those of the first
         * cluster that has any; empty when it has none (or is gone): the fixed address applies.
         */
        private List<InetAddress> placeholderAddresses(ServiceGroup g) {
            if (g == null) return List.of();
            List<CatalogEntry.Service> copies = new ArrayList<>(g.addressable());
            copies.sort(java.util.Comparator.comparing((CatalogEntry.Service s) -> !in.isLocal(s.cluster())));
            for (CatalogEntry.Service s : copies) {
                List<InetAddress> ips = new ArrayList<>();
                for (String text : s.clusterIps()) {
                    InetAddress ip = Names.ip(text);
                    if (ip != null) ips.add(ip);
                }
                if (!ips.isEmpty()) return ips;
            }
            return List.of();
        }

        /** Both name families of one service name, and who may see them. */
        private void buildGroup(ServiceGroup g, Contribution c) {
            Name base = Names.child(g.name, in.nsSuffix(g.namespace, in.zone));
            if (base == null) {
                c.warn("service " + g.id() + ": not a valid DNS name, skipped");
                return;
            }
            ClusterDomainRecords.build(in, g, base, c);
            Name setBase = Names.child(g.name, in.nsSuffix(g.namespace, in.clusterset));
            if (setBase != null) ClustersetRecords.build(in, g, setBase, c);
            c.serviceName = g.byCluster.isEmpty() ? null : base;
            List<MeshIndex.ExportScope> scopes = new ArrayList<>();
            for (CatalogEntry.Service s : g.byCluster.values()) {
                scopes.add(ExportScopes.of(s.exportTo(), g.namespace, settings.defaultExportTo(), true));
            }
            if (scopes.isEmpty()) scopes.add(ExportScopes.of(List.of(), g.namespace, settings.defaultExportTo(), true));
            MeshIndex.ExportScope scope = ExportScopes.union(scopes);
            if (scope != null && !c.records.isEmpty()) {
                c.scopes.put(base, scope);
                if (setBase != null) c.scopes.put(setBase, scope);
            }
        }

        /** Recompiles one ServiceEntry host from every entry that names it. */
        private void compileHost(String host, MeshIndexBuilder.Edit edit, Map<Name, Set<Name>> touched, List<String> warnings) {
            List<CatalogEntry.ServiceEntry> entries = new ArrayList<>();
            for (ObjectRef ref : serviceEntriesByHost.getOrDefault(host, Set.of())) {
                if (catalog.get(ref) instanceof CatalogEntry.ServiceEntry se && !in.dropped.contains(se.cluster())) entries.add(se);
            }
            Set<String> out = ClusterHealthPolicy.leftOut(in.unhealthy, entries.stream().map(CatalogEntry.ServiceEntry::cluster).toList());
            entries.removeIf(se -> out.contains(se.cluster()));
            entries.sort(ServiceEntryRecords.order(in));
            Contribution c = new Contribution(warnings);
            ServiceEntryRecords.build(in, host, entries, n -> edit.serviceNames.get(n) != null, c);
            if (c.wildcards.isEmpty()) wildcardsByHost.remove(host);
            else wildcardsByHost.put(host, List.copyOf(c.wildcards));
            file("host " + host, c, edit, touched);
        }

        /** Wildcard hosts outside our zones, by parent. */
        private Map<Name, List<Record>> wildcardHosts() {
            Map<Name, List<Record>> wildcards = new HashMap<>();
            wildcardsByHost.values().forEach(list -> {
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

    private String localCluster(Catalog catalog) {
        if (settings.localCluster() != null && !settings.localCluster().isBlank()) return settings.localCluster();
        for (ClusterStatus c : catalog.clusters()) {
            if (c.local()) return c.name();
        }
        return null; // no cluster is marked local: every cluster counts as local (single-cluster catalogs)
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
