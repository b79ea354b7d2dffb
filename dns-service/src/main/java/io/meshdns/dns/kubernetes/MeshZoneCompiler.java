package io.meshdns.dns.kubernetes;

import io.meshdns.dns.kubernetes.Contributions.Emitted;
import io.meshdns.dns.kubernetes.MeshSettings.RemoteServicePolicy;
import io.meshdns.dns.snapshot.SourceContent;
import io.meshdns.dns.snapshot.ZoneContent;
import io.meshdns.dns.snapshot.ZonePatch;
import io.meshdns.model.Catalog;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.ClusterStatus;
import io.meshdns.model.EndpointAddress;
import io.meshdns.model.ObjectRef;
import io.meshdns.model.PortSpec;
import io.meshdns.model.ServiceType;
import io.meshdns.model.ShardedMap;
import org.xbill.DNS.AAAARecord;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.CNAMERecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Name;
import org.xbill.DNS.PTRRecord;
import org.xbill.DNS.Record;
import org.xbill.DNS.ReverseMap;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.SRVRecord;
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
 * <p>Incremental: {@link #compile} compiles a whole catalog and remembers each contributor's records
 * (a contributor is one service name across clusters, one pod, one ServiceEntry); {@link #update} then
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
        return new MeshZones(state.fullContent(), state.index(), state.warnings);
    }

    /**
     * Moves from the last compiled catalog to {@code next}, given the refs that differ between them (a
     * delta's upserts and deletes). Recompiles only the service names, pods and ServiceEntries those refs
     * touch. Falls back to a whole compile (patches null) before any compile or when what every name depends
     * on changed (the local cluster, the gateways).
     */
    public synchronized MeshUpdate update(Catalog next, Collection<ObjectRef> changed) {
        if (state == null || !state.context.equals(context(next))) {
            MeshZones whole = compile(next);
            return new MeshUpdate(null, whole.zones(), whole.index(), whole.warnings());
        }
        state.apply(next, changed);
        return new MeshUpdate(state.patches(), null, state.index(), state.warnings);
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
                    return state == null ? Set.of() : Set.copyOf(state.authoritative.keySet());
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
                    return state.authoritative.containsKey(origin) ? new ZoneContent(origin, state.table.all(origin), true) : null;
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

    /** The catalog grouped the way names are: one service name (namespace/name) across clusters. */
    private static final class ServiceGroup {
        final String namespace;
        final String name;
        final Map<String, CatalogEntry.Service> byCluster = new TreeMap<>();
        final Map<String, List<CatalogEntry.EndpointSlice>> slicesByCluster = new TreeMap<>();
        final Map<String, CatalogEntry.ServiceImport> imports = new TreeMap<>();

        ServiceGroup(String namespace, String name) {
            this.namespace = namespace;
            this.name = name;
        }
    }

    /** One ready endpoint address with the hostname label it is published under. */
    private record Endpoint(String cluster, String hostname, InetAddress ip, List<PortSpec> ports) {
    }

    /** What a service name contributes to the index besides records. */
    private record GroupInfo(Name serviceName, List<Name> spread) {
        static final GroupInfo NONE = new GroupInfo(null, List.of());
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
        return java.util.Arrays.asList(local, gateways);
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

    /** Where one contributor's records go: a zone key (an origin, or null for the overlay). */
    private final class ZoneBuilder {
        final Name key;

        ZoneBuilder(Name key) {
            this.key = key;
        }

        void add(Record r) {
            state.out.add(new Emitted(key, r));
        }
    }

    private final class State {
        Catalog catalog;
        final List<Object> context;
        final String local;
        final Map<String, List<InetAddress>> gateways;
        final long ttl = settings.ttl();
        final Name zone = settings.clusterDomain();
        final Name clusterset = settings.clustersetDomain();
        final ZoneBuilder clusterZone = new ZoneBuilder(zone);
        final ZoneBuilder clustersetZone = new ZoneBuilder(clusterset);
        final ZoneBuilder overlay = new ZoneBuilder(null);
        final Map<Name, ZoneBuilder> suffixZones = new LinkedHashMap<>();
        /** Authoritative zone keys, in output order. */
        final Map<Name, ZoneBuilder> authoritative = new LinkedHashMap<>();

        final Contributions table = new Contributions();
        final Map<String, Set<ObjectRef>> groupMembers = new HashMap<>();
        final Map<String, GroupInfo> groupInfo = new HashMap<>();
        final Map<String, Integer> namespaceRefs = new HashMap<>();
        final Map<InetAddress, TreeMap<ObjectRef, String>> podIps = new HashMap<>();
        final Map<Name, Set<ObjectRef>> serviceEntriesByHost = new HashMap<>();
        final Map<ObjectRef, Set<Name>> hostsOfServiceEntry = new HashMap<>();
        final Map<ObjectRef, List<Record>> wildcardsOfServiceEntry = new TreeMap<>();
        ShardedMap<String, Boolean> namespaces = ShardedMap.empty();
        ShardedMap<InetAddress, String> podNamespaceByIp = ShardedMap.empty();
        ShardedMap<Name, Boolean> serviceNamesMap = ShardedMap.empty();
        ShardedMap<Name, Boolean> spreadNamesMap = ShardedMap.empty();
        Map<Name, List<Record>> wildcardHosts = Map.of();

        // Per operation (compileAll or apply):
        ShardedMap.Editor<String, Boolean> namespacesEdit;
        ShardedMap.Editor<InetAddress, String> podNamespaceEdit;
        ShardedMap.Editor<Name, Boolean> serviceNames;
        ShardedMap.Editor<Name, Boolean> spreadNames;
        Map<Name, Set<Name>> touched;
        List<String> warnings;
        // Per contributor:
        List<Emitted> out;
        final List<Name> groupSpread = new ArrayList<>();
        final List<Record> wildcardOut = new ArrayList<>();

        State(Catalog catalog) {
            this.catalog = Catalog.empty();
            this.context = context(catalog);
            this.local = (String) context.get(0);
            @SuppressWarnings("unchecked")
            Map<String, List<InetAddress>> gw = (Map<String, List<InetAddress>>) context.get(1);
            this.gateways = gw;
            authoritative.put(zone, clusterZone);
            authoritative.put(clusterset, clustersetZone);
            if (settings.placeholder().enabled()) {
                for (Name suffix : settings.placeholder().serviceEntrySuffixes()) {
                    ZoneBuilder z = new ZoneBuilder(suffix);
                    suffixZones.put(suffix, z);
                    authoritative.putIfAbsent(suffix, z);
                }
            }
        }

        boolean isLocal(String cluster) {
            return local == null || local.equals(cluster);
        }

        void compileAll(Catalog initial) {
            List<ObjectRef> all = new ArrayList<>(initial.entries().keySet());
            java.util.Collections.sort(all); // catalog order is a hash order: compile in a stable one
            apply(initial, all);
            out = new ArrayList<>();
            clusterZone.add(new TXTRecord(Names.under("dns-version", zone), DClass.IN, ttl, DNS_SCHEMA_VERSION));
            table.replace(STATIC_CONTRIBUTOR, out, new LinkedHashMap<>());
        }

        /** Moves to {@code next}: only what {@code changed} touches is recompiled; {@link #touched} says which owners. */
        void apply(Catalog next, Collection<ObjectRef> changed) {
            Catalog previous = catalog;
            catalog = next;
            namespacesEdit = namespaces.edit();
            podNamespaceEdit = podNamespaceByIp.edit();
            serviceNames = serviceNamesMap.edit();
            spreadNames = spreadNamesMap.edit();
            touched = new LinkedHashMap<>();
            warnings = new ArrayList<>();
            Set<String> groups = new TreeSet<>();
            Set<ObjectRef> pods = new TreeSet<>();
            Set<ObjectRef> serviceEntries = new TreeSet<>();
            for (ObjectRef ref : changed) {
                CatalogEntry before = previous.get(ref);
                CatalogEntry after = next.get(ref);
                if (before != null && before.equals(after)) continue;
                if (before != null) forget(before, groups, pods, serviceEntries);
                if (after != null) learn(after, groups, pods, serviceEntries);
            }
            for (String key : groups) compileGroup(key, serviceEntries);
            for (ObjectRef ref : pods) {
                out = new ArrayList<>();
                if (next.get(ref) instanceof CatalogEntry.Pod p) compilePod(p);
                table.replace("pod " + ref, out, touched);
            }
            if (!serviceEntries.isEmpty()) {
                for (ObjectRef ref : serviceEntries) compileServiceEntry(ref);
                Map<Name, List<Record>> wildcards = new HashMap<>();
                wildcardsOfServiceEntry.values().forEach(list -> {
                    for (Record r : list) wildcards.computeIfAbsent(new Name(r.getName(), 1), k -> new ArrayList<>()).add(r);
                });
                wildcards.replaceAll((k, v) -> List.copyOf(new LinkedHashSet<>(v)));
                wildcardHosts = Map.copyOf(wildcards);
            }
            out = new ArrayList<>();
            long serial = next.version() & 0xffffffffL;
            for (Name origin : authoritative.keySet()) authoritative.get(origin).add(soa(origin, serial));
            table.replace(SOA_CONTRIBUTOR, out, touched);

            namespaces = namespacesEdit.build();
            podNamespaceByIp = podNamespaceEdit.build();
            serviceNamesMap = serviceNames.build();
            spreadNamesMap = spreadNames.build();
        }

        private void forget(CatalogEntry e, Set<String> groups, Set<ObjectRef> pods, Set<ObjectRef> serviceEntries) {
            String group = groupOf(e);
            if (group != null) {
                Set<ObjectRef> members = groupMembers.get(group);
                if (members != null && members.remove(e.ref()) && members.isEmpty()) groupMembers.remove(group);
                groups.add(group);
            }
            if (e instanceof CatalogEntry.Namespace n) countNamespace(n.name(), -1);
            if (e instanceof CatalogEntry.Service s) countNamespace(s.namespace(), -1);
            if (e instanceof CatalogEntry.Pod p) {
                pods.add(p.ref());
                podAddresses(p, false);
            }
            if (e instanceof CatalogEntry.ServiceEntry se) serviceEntries.add(se.ref());
        }

        private void learn(CatalogEntry e, Set<String> groups, Set<ObjectRef> pods, Set<ObjectRef> serviceEntries) {
            String group = groupOf(e);
            if (group != null) {
                groupMembers.computeIfAbsent(group, k -> new HashSet<>()).add(e.ref());
                groups.add(group);
            }
            if (e instanceof CatalogEntry.Namespace n) countNamespace(n.name(), 1);
            if (e instanceof CatalogEntry.Service s) countNamespace(s.namespace(), 1);
            if (e instanceof CatalogEntry.Pod p) {
                pods.add(p.ref());
                podAddresses(p, true);
            }
            if (e instanceof CatalogEntry.ServiceEntry se) serviceEntries.add(se.ref());
        }

        private void countNamespace(String name, int delta) {
            String ns = name.toLowerCase(Locale.ROOT);
            int n = namespaceRefs.getOrDefault(ns, 0) + delta;
            if (n <= 0) {
                namespaceRefs.remove(ns);
                namespacesEdit.remove(ns);
            } else {
                namespaceRefs.put(ns, n);
                namespacesEdit.put(ns, Boolean.TRUE);
            }
        }

        /** Client IP → namespace (autopath) from the local cluster's pods; the first pod by ref wins a shared IP. */
        private void podAddresses(CatalogEntry.Pod p, boolean add) {
            if (!isLocal(p.cluster())) return;
            for (String text : p.ips()) {
                InetAddress ip = Names.ip(text);
                if (ip == null) continue;
                TreeMap<ObjectRef, String> owners = podIps.computeIfAbsent(ip, k -> new TreeMap<>());
                if (add) owners.put(p.ref(), p.namespace().toLowerCase(Locale.ROOT));
                else owners.remove(p.ref());
                if (owners.isEmpty()) {
                    podIps.remove(ip);
                    podNamespaceEdit.remove(ip);
                } else {
                    podNamespaceEdit.put(ip, owners.firstEntry().getValue());
                }
            }
        }

        /** Recompiles one service name; a service appearing or going away re-checks the ServiceEntries it shadows. */
        private void compileGroup(String key, Set<ObjectRef> serviceEntries) {
            ServiceGroup g = null;
            for (ObjectRef ref : groupMembers.getOrDefault(key, Set.of())) {
                CatalogEntry e = catalog.get(ref);
                if (e == null) continue;
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
            GroupInfo before = groupInfo.getOrDefault(key, GroupInfo.NONE);
            out = new ArrayList<>();
            groupSpread.clear();
            Name serviceName = null;
            if (g != null) {
                for (List<CatalogEntry.EndpointSlice> slices : g.slicesByCluster.values()) {
                    slices.sort((a, b) -> a.name().compareTo(b.name()));
                }
                serviceName = compileGroup(g);
            }
            table.replace("service " + key, out, touched);
            GroupInfo after = serviceName == null && groupSpread.isEmpty() ? GroupInfo.NONE : new GroupInfo(serviceName, List.copyOf(groupSpread));
            if (after == GroupInfo.NONE) groupInfo.remove(key);
            else groupInfo.put(key, after);
            for (Name n : before.spread()) spreadNames.remove(n);
            for (Name n : after.spread()) spreadNames.put(n, Boolean.TRUE);
            if (!java.util.Objects.equals(before.serviceName(), after.serviceName())) {
                if (before.serviceName() != null) {
                    serviceNames.remove(before.serviceName());
                    serviceEntries.addAll(serviceEntriesByHost.getOrDefault(before.serviceName(), Set.of()));
                }
                if (after.serviceName() != null) {
                    serviceNames.put(after.serviceName(), Boolean.TRUE);
                    serviceEntries.addAll(serviceEntriesByHost.getOrDefault(after.serviceName(), Set.of()));
                }
            }
        }

        /** The records of one service name; returns the name when a Service (in any cluster) holds it. */
        private Name compileGroup(ServiceGroup g) {
            Name base = Names.child(g.name, nsSuffix(g.namespace, zone));
            if (base == null) {
                warnings.add("service " + g.namespace + "/" + g.name + ": not a valid DNS name, skipped");
                return null;
            }
            compileClusterName(g, base);
            Name setBase = Names.child(g.name, nsSuffix(g.namespace, clusterset));
            if (setBase != null) compileClustersetName(g, setBase);
            return g.byCluster.isEmpty() ? null : base;
        }

        private void compileServiceEntry(ObjectRef ref) {
            out = new ArrayList<>();
            wildcardOut.clear();
            Set<Name> hosts = new HashSet<>();
            if (catalog.get(ref) instanceof CatalogEntry.ServiceEntry se) compileServiceEntry(se, hosts);
            table.replace("serviceentry " + ref, out, touched);
            Set<Name> old = hosts.isEmpty() ? hostsOfServiceEntry.remove(ref) : hostsOfServiceEntry.put(ref, hosts);
            for (Name h : old == null ? Set.<Name>of() : old) {
                Set<ObjectRef> refs = serviceEntriesByHost.get(h);
                if (refs != null && refs.remove(ref) && refs.isEmpty()) serviceEntriesByHost.remove(h);
            }
            for (Name h : hosts) serviceEntriesByHost.computeIfAbsent(h, k -> new HashSet<>()).add(ref);
            if (wildcardOut.isEmpty()) wildcardsOfServiceEntry.remove(ref);
            else wildcardsOfServiceEntry.put(ref, List.copyOf(wildcardOut));
        }

        /** The owners this operation touched, as patches: each owner with all its records now. */
        private List<ZonePatch> patches() {
            List<ZonePatch> patches = new ArrayList<>();
            touched.forEach((zoneKey, owners) -> {
                Map<Name, List<Record>> records = new LinkedHashMap<>();
                for (Name owner : owners) records.put(owner, table.at(zoneKey, owner));
                patches.add(new ZonePatch(zoneKey, records));
            });
            return patches;
        }

        /** Everything, as zone contents: the authoritative zones, then the overlay by reverse zone and by host. */
        List<ZoneContent> fullContent() {
            List<ZoneContent> zones = new ArrayList<>();
            for (Name origin : authoritative.keySet()) zones.add(new ZoneContent(origin, table.all(origin), true));
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

        MeshIndex index() {
            return new MeshIndex(namespaces.keySet(), podNamespaceByIp, serviceNamesMap.keySet(), spreadNamesMap.keySet(), wildcardHosts,
                    catalog.version());
        }

        void spread(Name n) {
            groupSpread.add(n);
        }

        // ---- <svc>.<ns>.svc.<cluster-domain> ----

        void compileClusterName(ServiceGroup g, Name base) {
            CatalogEntry.Service localSvc = null;
            List<CatalogEntry.Service> remote = new ArrayList<>();
            for (CatalogEntry.Service s : g.byCluster.values()) {
                if (isLocal(s.cluster()) && localSvc == null) localSvc = s;
                else remote.add(s);
            }
            if (localSvc != null) {
                // The local service wins: remote copies of the same name are reachable through clusterset.local.
                emitService(clusterZone, base, List.of(localSvc), g, true);
                return;
            }
            if (remote.isEmpty()) return;
            CatalogEntry.Service first = remote.get(0);
            if (first.serviceType() == ServiceType.EXTERNAL_NAME) {
                emitService(clusterZone, base, List.of(first), g, false);
                return;
            }
            switch (settings.remotePolicy()) {
                case CLUSTER_IP -> emitService(clusterZone, base, remote, g, false);
                case GATEWAY -> {
                    Set<InetAddress> ips = new LinkedHashSet<>();
                    Set<String> contributing = new HashSet<>();
                    for (CatalogEntry.Service s : remote) {
                        List<InetAddress> gw = gateways.getOrDefault(s.cluster(), List.of());
                        if (!gw.isEmpty()) contributing.add(s.cluster());
                        ips.addAll(gw);
                    }
                    if (ips.isEmpty()) {
                        warnings.add("service " + g.namespace + "/" + g.name + " exists only in remote clusters without a known "
                                + "east-west gateway (set meshdns.dns.cluster-gateways.<cluster>); no records");
                        return;
                    }
                    for (InetAddress ip : ips) clusterZone.add(address(base, ttl, ip));
                    if (contributing.size() > 1) spread(base);
                    emitServiceSrv(clusterZone, base, first.ports());
                }
                case PLACEHOLDER -> {
                    clusterZone.add(address(base, settings.placeholder().ttl(), settings.placeholder().ipv4()));
                    emitServiceSrv(clusterZone, base, first.ports());
                }
            }
        }

        /**
         * The records of one service name from {@code services} (one per cluster; more than one only when
         * remote copies are merged): ClusterIPs, or ready endpoints when every copy is headless, or a CNAME.
         */
        void emitService(ZoneBuilder z, Name base, List<CatalogEntry.Service> services, ServiceGroup g, boolean withPtr) {
            CatalogEntry.Service first = services.get(0);
            if (first.serviceType() == ServiceType.EXTERNAL_NAME) {
                Name target = first.externalName() == null ? null : Names.under(stripDot(first.externalName()), Name.root);
                if (target == null) {
                    warnings.add("service " + g.namespace + "/" + g.name + ": ExternalName '" + first.externalName() + "' is not a DNS name");
                    return;
                }
                z.add(new CNAMERecord(base, DClass.IN, ttl, target));
                return;
            }
            List<CatalogEntry.Service> withIps = services.stream().filter(s -> !s.headless() && s.serviceType() != ServiceType.EXTERNAL_NAME).toList();
            if (!withIps.isEmpty()) {
                Set<String> contributing = new HashSet<>();
                Set<InetAddress> seen = new HashSet<>();
                for (CatalogEntry.Service s : withIps) {
                    for (String text : s.clusterIps()) {
                        InetAddress ip = Names.ip(text);
                        if (ip == null) {
                            warnings.add("service " + g.namespace + "/" + g.name + ": bad ClusterIP '" + text + "'");
                            continue;
                        }
                        if (!seen.add(ip)) continue;
                        z.add(address(base, ttl, ip));
                        contributing.add(s.cluster());
                        if (withPtr) ptr(ip, base);
                    }
                }
                if (contributing.size() > 1) spread(base);
                emitServiceSrv(z, base, first.ports());
                return;
            }
            // Headless: the union of ready endpoints of every given copy.
            List<Endpoint> endpoints = new ArrayList<>();
            for (CatalogEntry.Service s : services) endpoints.addAll(readyEndpoints(g, s.cluster()));
            emitHeadless(z, base, endpoints, first.ports(), withPtr, false);
        }

        /** A/AAAA at {@code base}, per-endpoint names, SRV per named port × endpoint, PTR when local. */
        void emitHeadless(ZoneBuilder z, Name base, List<Endpoint> endpoints, List<PortSpec> servicePorts,
                          boolean withPtr, boolean clusterLabel) {
            // An empty headless service produces no records at all: the name does not exist (NXDOMAIN).
            Set<String> contributing = new HashSet<>();
            Set<InetAddress> seen = new HashSet<>();
            for (Endpoint ep : endpoints) {
                if (seen.add(ep.ip)) z.add(address(base, ttl, ep.ip));
                contributing.add(ep.cluster);
                Name host = endpointName(base, ep, clusterLabel);
                if (host == null) continue;
                z.add(address(host, ttl, ep.ip));
                if (withPtr) ptr(ep.ip, host);
                for (PortSpec p : servicePorts) {
                    if (p.name().isEmpty()) continue;
                    Name owner = srvOwner(base, p);
                    if (owner == null) continue;
                    z.add(new SRVRecord(owner, DClass.IN, ttl, 0, 100, endpointPort(ep, p), host));
                }
            }
            if (contributing.size() > 1) spread(base);
        }

        Name endpointName(Name base, Endpoint ep, boolean clusterLabel) {
            if (!clusterLabel) return Names.child(ep.hostname, base);
            Name perCluster = Names.child(ep.cluster.toLowerCase(Locale.ROOT), base);
            return perCluster == null ? null : Names.child(ep.hostname, perCluster);
        }

        /** The endpoint's own port of the same name (the pod's real port: there is no proxy in front of a headless service). */
        int endpointPort(Endpoint ep, PortSpec servicePort) {
            for (PortSpec p : ep.ports) {
                if (p.name().equals(servicePort.name()) && p.protocol().equalsIgnoreCase(servicePort.protocol())) return p.port();
            }
            return servicePort.port();
        }

        void emitServiceSrv(ZoneBuilder z, Name base, List<PortSpec> ports) {
            for (PortSpec p : ports) {
                if (p.name().isEmpty()) continue; // unnamed ports have no SRV record (spec)
                Name owner = srvOwner(base, p);
                if (owner != null) z.add(new SRVRecord(owner, DClass.IN, ttl, 0, 100, p.port(), base));
            }
        }

        Name srvOwner(Name base, PortSpec p) {
            Name prefix = srvPrefixes.computeIfAbsent(p.name() + "|" + p.protocol(), k -> relative(
                    "_" + p.name().toLowerCase(Locale.ROOT) + "._" + p.protocol().toLowerCase(Locale.ROOT)));
            return prefix == null ? null : Names.concat(prefix, base);
        }

        List<Endpoint> readyEndpoints(ServiceGroup g, String cluster) {
            List<Endpoint> out = new ArrayList<>();
            Set<String> seen = new HashSet<>(); // one endpoint may sit in two slices while they are being rebalanced
            for (CatalogEntry.EndpointSlice slice : g.slicesByCluster.getOrDefault(cluster, List.of())) {
                for (EndpointAddress ea : slice.endpoints()) {
                    if (!ea.ready()) continue;
                    for (String text : ea.addresses()) {
                        InetAddress ip = Names.ip(text);
                        if (ip == null) {
                            // FQDN-typed slices and garbage: not an address record.
                            continue;
                        }
                        String host = ea.hostname() != null && !ea.hostname().isEmpty()
                                ? ea.hostname().toLowerCase(Locale.ROOT)
                                : Names.dashed(ip); // the spec's "system-assigned identifier", as CoreDNS makes it
                        if (seen.add(host + "/" + text)) out.add(new Endpoint(cluster, host, ip, slice.ports()));
                    }
                }
            }
            return out;
        }

        // ---- <svc>.<ns>.svc.<clusterset-domain> (KEP-1645) ----

        void compileClustersetName(ServiceGroup g, Name base) {
            List<CatalogEntry.Service> copies = g.byCluster.values().stream()
                    .filter(s -> s.serviceType() != ServiceType.EXTERNAL_NAME).toList();
            CatalogEntry.ServiceImport imp = g.imports.isEmpty() ? null
                    : (local != null && g.imports.containsKey(local) ? g.imports.get(local) : g.imports.values().iterator().next());
            if (copies.isEmpty() && imp == null) return;
            boolean headless = imp != null ? "Headless".equalsIgnoreCase(imp.importType())
                    : copies.stream().allMatch(CatalogEntry.Service::headless);
            List<PortSpec> ports = imp != null && !imp.ports().isEmpty() ? imp.ports()
                    : copies.isEmpty() ? List.of() : copies.get(0).ports();
            if (headless) {
                List<Endpoint> all = new ArrayList<>();
                for (CatalogEntry.Service s : copies) {
                    List<Endpoint> eps = readyEndpoints(g, s.cluster());
                    all.addAll(eps);
                    Name perCluster = Names.under(s.cluster().toLowerCase(Locale.ROOT), base);
                    if (perCluster != null) for (Endpoint ep : eps) clustersetZone.add(address(perCluster, ttl, ep.ip));
                }
                emitHeadless(clustersetZone, base, all, ports, false, true);
                return;
            }
            // ClusterSetIP: the ServiceImport's IPs; without one, the union of every cluster's ClusterIPs (there is no
            // MCS controller allocating a clusterset VIP, and each ClusterIP reaches the service in its cluster).
            Set<String> contributing = new HashSet<>();
            if (imp != null && !imp.ips().isEmpty()) {
                for (String text : imp.ips()) {
                    InetAddress ip = Names.ip(text);
                    if (ip != null) clustersetZone.add(address(base, ttl, ip));
                }
            } else {
                for (CatalogEntry.Service s : copies) {
                    for (String text : s.clusterIps()) {
                        InetAddress ip = Names.ip(text);
                        if (ip == null) continue;
                        clustersetZone.add(address(base, ttl, ip));
                        contributing.add(s.cluster());
                    }
                }
            }
            if (contributing.size() > 1) spread(base);
            for (CatalogEntry.Service s : copies) {
                Name perCluster = Names.under(s.cluster().toLowerCase(Locale.ROOT), base);
                if (perCluster == null) continue;
                for (String text : s.clusterIps()) {
                    InetAddress ip = Names.ip(text);
                    if (ip != null) clustersetZone.add(address(perCluster, ttl, ip));
                }
            }
            emitServiceSrv(clustersetZone, base, ports);
        }

        // ---- pods ----

        void compilePod(CatalogEntry.Pod p) {
            if (!isLocal(p.cluster())) return;
            for (String text : p.ips()) {
                InetAddress ip = Names.ip(text);
                if (ip == null) continue;
                if (settings.pods() == MeshSettings.PodRecords.VERIFIED) {
                    Name owner = Names.under(Names.dashed(ip) + "." + p.namespace() + ".pod", zone);
                    if (owner != null) clusterZone.add(address(owner, ttl, ip));
                }
            }
        }

        // ---- ServiceEntry hosts ----

        /** One ServiceEntry's hosts; {@code hostsInClusterZone} collects the hosts a Service of the same name would shadow. */
        void compileServiceEntry(CatalogEntry.ServiceEntry se, Set<Name> hostsInClusterZone) {
            {
                List<InetAddress> own = new ArrayList<>();
                for (String a : se.addresses()) {
                    InetAddress ip = Names.ip(hostPart(a));
                    if (ip == null) {
                        warnings.add("ServiceEntry " + se.ref() + ": address '" + a + "' is not an IP or single-host CIDR, not published");
                    } else {
                        own.add(ip);
                    }
                }
                for (String rawHost : se.hosts()) {
                    String host = stripDot(rawHost.toLowerCase(Locale.ROOT));
                    List<InetAddress> ips = own;
                    if (ips.isEmpty()) ips = parseAll(se.allocatedVips().getOrDefault(rawHost, se.allocatedVips().getOrDefault(host, List.of())));
                    if (ips.isEmpty() && ("DNS".equalsIgnoreCase(se.resolution()) || "STATIC".equalsIgnoreCase(se.resolution())
                            || "DNS_ROUND_ROBIN".equalsIgnoreCase(se.resolution()))) {
                        ips = parseAll(se.endpointAddresses());
                    }
                    if (ips.isEmpty()) continue; // nothing to answer: the name forwards (or gets the placeholder under a suffix)
                    Name owner = Names.under(host, Name.root);
                    if (owner == null) {
                        warnings.add("ServiceEntry " + se.ref() + ": host '" + rawHost + "' is not a DNS name");
                        continue;
                    }
                    if (owner.isWild() && !inOurZones(owner)) {
                        // Outside our zones a wildcard cannot live in the exact-match overlay: answered before forwarding.
                        for (InetAddress ip : ips) wildcardOut.add(address(owner, ttl, ip));
                        continue;
                    }
                    ZoneBuilder z = zoneForHost(owner);
                    if (z == clusterZone) {
                        hostsInClusterZone.add(owner);
                        if (serviceNames.get(owner) != null) continue; // a Kubernetes service of that name wins over a ServiceEntry host
                    }
                    Set<InetAddress> done = new HashSet<>();
                    for (InetAddress ip : ips) {
                        if (done.add(ip)) z.add(address(owner, ttl, ip)); // several entries may name one host: the RRset merges them
                    }
                }
            }
        }

        boolean inOurZones(Name owner) {
            if (owner.subdomain(zone) || owner.subdomain(clusterset)) return true;
            for (Name suffix : suffixZones.keySet()) {
                if (owner.subdomain(suffix)) return true;
            }
            return false;
        }

        ZoneBuilder zoneForHost(Name owner) {
            if (owner.subdomain(zone)) return clusterZone;
            if (owner.subdomain(clusterset)) return clustersetZone;
            for (Map.Entry<Name, ZoneBuilder> e : suffixZones.entrySet()) {
                if (owner.subdomain(e.getKey())) return e.getValue();
            }
            // Outside our domains: not authoritative (the snapshot's overlay: exactly this name).
            return overlay;
        }

        List<InetAddress> parseAll(List<String> texts) {
            List<InetAddress> out = new ArrayList<>();
            for (String t : texts) {
                InetAddress ip = Names.ip(hostPart(t));
                if (ip != null) out.add(ip);
            }
            return out;
        }

        void ptr(InetAddress ip, Name target) {
            Name owner = ReverseMap.fromAddress(ip);
            overlay.add(new PTRRecord(owner, DClass.IN, ttl, target));
        }

        final Map<String, Name> nsSuffixes = new HashMap<>();

        /** {@code <ns>.svc.<domain>}, built once per namespace and domain. */
        Name nsSuffix(String ns, Name domain) {
            return nsSuffixes.computeIfAbsent(ns + "|" + domain, k -> Names.under(ns + ".svc", domain));
        }

        final Map<String, Name> srvPrefixes = new HashMap<>();
    }

    private static Name relative(String text) {
        try {
            return Name.fromString(text);
        } catch (org.xbill.DNS.TextParseException e) {
            return null;
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

    /** {@code 10.0.0.1/32} → {@code 10.0.0.1}; other prefixes stay as they are (and then fail to parse as an IP). */
    private static String hostPart(String text) {
        int slash = text.indexOf('/');
        if (slash < 0) return text;
        String prefix = text.substring(slash + 1);
        String host = text.substring(0, slash);
        return (prefix.equals("32") && host.indexOf(':') < 0) || (prefix.equals("128") && host.indexOf(':') >= 0) ? host : text;
    }

    private static String stripDot(String s) {
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }
}
