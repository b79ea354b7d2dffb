package io.meshdns.dns.kubernetes;

import io.meshdns.dns.kubernetes.MeshSettings.RemoteServicePolicy;
import io.meshdns.dns.snapshot.ZoneContent;
import io.meshdns.model.Catalog;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.ClusterStatus;
import io.meshdns.model.EndpointAddress;
import io.meshdns.model.PortSpec;
import io.meshdns.model.ServiceType;
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

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Turns a {@link Catalog} into DNS zone contents, following the Kubernetes DNS specification
 * (kubernetes/dns docs/specification.md), the MCS DNS specification (KEP-1645) for clusterset.local, and
 * the node's multi-cluster policy. Pure: no I/O, no clock, no randomness; the same catalog and settings
 * always give the same records in the same order. Answer-time behaviour (placeholder, insecure pod names,
 * spreading, autopath, chasing ExternalName targets) lives in {@link MeshAnswerPolicy}.
 *
 * <p>Zones produced:
 * <ul>
 *   <li>{@code <cluster-domain>} (authoritative): services, endpoints, SRV, verified pods, ServiceEntry hosts
 *       under the cluster domain, {@code dns-version} TXT.</li>
 *   <li>{@code <clusterset-domain>} (authoritative): MCS names.</li>
 *   <li>{@code in-addr.arpa.} and {@code ip6.arpa.} (not authoritative): PTR for local ClusterIPs and
 *       endpoints only; any other reverse name still goes to the forwarder.</li>
 *   <li>one zone per ServiceEntry host outside our domains (not authoritative: the snapshot's exact-name
 *       overlay; a wildcard host goes to {@link MeshIndex#wildcardHosts()} instead), and one authoritative
 *       zone per placeholder ServiceEntry suffix.</li>
 * </ul>
 */
public final class MeshZoneCompiler {
    static final String DNS_SCHEMA_VERSION = "1.1.0";
    private static final Name IN_ADDR_ARPA = Names.absolute("in-addr.arpa");
    private static final Name IP6_ARPA = Names.absolute("ip6.arpa");

    private final MeshSettings settings;

    public MeshZoneCompiler(MeshSettings settings) {
        this.settings = settings;
    }

    public MeshSettings settings() {
        return settings;
    }

    /**
     * Compiles {@code catalog}. Service names whose entries (services, slices, imports in every cluster) are equal
     * to the previous call's reuse that call's records, so a delta costs a scan of the catalog plus the changed
     * names only. Synchronized: callers compile from one thread anyway (the catalog thread).
     */
    public synchronized MeshZones compile(Catalog catalog) {
        return new Run(catalog).compile();
    }

    /** The records one service name produced, and the entries it produced them from. */
    private record GroupOutput(Map<String, CatalogEntry.Service> services, Map<String, List<CatalogEntry.EndpointSlice>> slices,
                               Map<String, CatalogEntry.ServiceImport> imports,
                               List<Record> cluster, List<Record> clusterset, List<Record> reverse4, List<Record> reverse6,
                               List<Name> spread, Name serviceName) {
        boolean sameInput(ServiceGroup g) {
            return services.equals(g.byCluster) && slices.equals(g.slicesByCluster) && imports.equals(g.imports);
        }
    }

    private Map<String, GroupOutput> groupCache = Map.of();
    private Object cacheContext;

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

    /** The records of one zone, deduplicated, in insertion order. */
    private final class ZoneBuilder {
        final Name origin;
        final boolean authoritative;
        // A list, not a set: Record.hashCode encodes the record to wire form on every call, and duplicates are
        // harmless (the snapshot's RRsets drop them). The emitters avoid producing them in the first place.
        final List<Record> records = new ArrayList<>();

        ZoneBuilder(Name origin, boolean authoritative) {
            this.origin = origin;
            this.authoritative = authoritative;
        }

        void add(Record r) {
            records.add(r);
        }

        ZoneContent build(long serial) {
            List<Record> list = new ArrayList<>(records.size() + 1);
            list.add(soa(origin, serial));
            list.addAll(records);
            return new ZoneContent(origin, list, authoritative);
        }
    }

    private final class Run {
        final Catalog catalog;
        final String local;
        final long ttl = settings.ttl();
        final Name zone = settings.clusterDomain();
        final Name clusterset = settings.clustersetDomain();
        final ZoneBuilder clusterZone;
        final ZoneBuilder clustersetZone;
        final ZoneBuilder reverse4 = new ZoneBuilder(IN_ADDR_ARPA, false);
        final ZoneBuilder reverse6 = new ZoneBuilder(IP6_ARPA, false);
        final Map<Name, ZoneBuilder> suffixZones = new LinkedHashMap<>();
        final Map<Name, ZoneBuilder> hostZones = new TreeMap<>();
        final Map<Name, LinkedHashSet<Record>> wildcardHosts = new TreeMap<>(); // few: a set is fine here
        final Set<String> namespaces = new HashSet<>();
        final Map<InetAddress, String> podNamespaceByIp = new HashMap<>();
        final Set<Name> spreadNames = new HashSet<>();
        final Set<Name> serviceNames = new HashSet<>();
        final List<String> warnings = new ArrayList<>();
        final Map<String, List<InetAddress>> gateways = new HashMap<>();

        final Object context;

        Run(Catalog catalog) {
            this.catalog = catalog;
            this.local = localCluster(catalog);
            this.clusterZone = new ZoneBuilder(zone, true);
            this.clustersetZone = new ZoneBuilder(clusterset, true);
            if (settings.placeholder().enabled()) {
                for (Name suffix : settings.placeholder().serviceEntrySuffixes()) {
                    suffixZones.put(suffix, new ZoneBuilder(suffix, true));
                }
            }
            for (ClusterStatus c : catalog.clusters()) {
                List<InetAddress> ips = new ArrayList<>();
                for (String g : c.gatewayAddresses()) {
                    InetAddress ip = Names.ip(g);
                    if (ip != null) ips.add(ip);
                }
                gateways.put(c.name(), ips);
            }
            gateways.putAll(settings.gatewayOverrides());
            // Everything a service name's records depend on besides its own entries: a change drops the cache.
            this.context = java.util.Arrays.asList(local, new HashMap<>(gateways));
        }

        boolean isLocal(String cluster) {
            return local == null || local.equals(cluster);
        }

        MeshZones compile() {
            Map<String, ServiceGroup> groups = new TreeMap<>();
            List<CatalogEntry.ServiceEntry> serviceEntries = new ArrayList<>();
            List<CatalogEntry.Pod> pods = new ArrayList<>();
            for (CatalogEntry e : catalog.values()) {
                if (e instanceof CatalogEntry.Namespace n) {
                    namespaces.add(n.name().toLowerCase(Locale.ROOT));
                } else if (e instanceof CatalogEntry.Service s) {
                    group(groups, s.namespace(), s.name()).byCluster.put(s.cluster(), s);
                    namespaces.add(s.namespace().toLowerCase(Locale.ROOT));
                } else if (e instanceof CatalogEntry.EndpointSlice es) {
                    if (es.serviceName() != null) {
                        group(groups, es.namespace(), es.serviceName()).slicesByCluster
                                .computeIfAbsent(es.cluster(), k -> new ArrayList<>()).add(es);
                    }
                } else if (e instanceof CatalogEntry.ServiceImport si) {
                    group(groups, si.namespace(), si.name()).imports.put(si.cluster(), si);
                } else if (e instanceof CatalogEntry.ServiceEntry se) {
                    serviceEntries.add(se);
                } else if (e instanceof CatalogEntry.Pod p) {
                    pods.add(p);
                }
            }
            for (ServiceGroup g : groups.values()) {
                for (List<CatalogEntry.EndpointSlice> slices : g.slicesByCluster.values()) {
                    slices.sort((a, b) -> a.name().compareTo(b.name())); // catalog order is a hash order
                }
            }
            clusterZone.add(new TXTRecord(Names.under("dns-version", zone), DClass.IN, ttl, DNS_SCHEMA_VERSION));
            Map<String, GroupOutput> previous = context.equals(cacheContext) ? groupCache : Map.of();
            Map<String, GroupOutput> next = new HashMap<>(groups.size() * 2);
            for (Map.Entry<String, ServiceGroup> e : groups.entrySet()) {
                ServiceGroup g = e.getValue();
                GroupOutput cached = previous.get(e.getKey());
                if (cached != null && cached.sameInput(g)) {
                    replay(cached); // unchanged service name: reuse its records (warnings were logged when it changed)
                    next.put(e.getKey(), cached);
                    continue;
                }
                next.put(e.getKey(), compileGroup(g));
            }
            groupCache = next;
            cacheContext = context;
            pods.sort((a, b) -> a.ref().compareTo(b.ref()));
            for (CatalogEntry.Pod p : pods) compilePod(p);
            serviceEntries.sort((a, b) -> a.ref().compareTo(b.ref()));
            compileServiceEntries(serviceEntries);

            long serial = catalog.version() & 0xffffffffL;
            List<ZoneContent> zones = new ArrayList<>();
            zones.add(clusterZone.build(serial));
            zones.add(clustersetZone.build(serial));
            if (!reverse4.records.isEmpty()) zones.add(reverse4.build(serial));
            if (!reverse6.records.isEmpty()) zones.add(reverse6.build(serial));
            for (ZoneBuilder z : suffixZones.values()) zones.add(z.build(serial));
            for (ZoneBuilder z : hostZones.values()) zones.add(z.build(serial));
            Map<Name, List<Record>> wildcards = new HashMap<>();
            wildcardHosts.forEach((parent, records) -> wildcards.put(parent, List.copyOf(records)));
            return new MeshZones(zones, new MeshIndex(namespaces, podNamespaceByIp, serviceNames, spreadNames, wildcards, catalog.version()), warnings);
        }

        /** Compiles one service name, capturing what it appends so that the next compile can reuse it. */
        GroupOutput compileGroup(ServiceGroup g) {
            int c0 = clusterZone.records.size(), s0 = clustersetZone.records.size();
            int r4 = reverse4.records.size(), r6 = reverse6.records.size();
            groupSpread.clear();
            Name serviceName = null;
            Name base = Names.child(g.name, nsSuffix(g.namespace, zone));
            if (base == null) {
                warnings.add("service " + g.namespace + "/" + g.name + ": not a valid DNS name, skipped");
            } else {
                if (!g.byCluster.isEmpty()) {
                    serviceName = base;
                    serviceNames.add(base);
                }
                compileClusterName(g, base);
                Name setBase = Names.child(g.name, nsSuffix(g.namespace, clusterset));
                if (setBase != null) compileClustersetName(g, setBase);
            }
            return new GroupOutput(new TreeMap<>(g.byCluster), new TreeMap<>(g.slicesByCluster), new TreeMap<>(g.imports),
                    List.copyOf(clusterZone.records.subList(c0, clusterZone.records.size())),
                    List.copyOf(clustersetZone.records.subList(s0, clustersetZone.records.size())),
                    List.copyOf(reverse4.records.subList(r4, reverse4.records.size())),
                    List.copyOf(reverse6.records.subList(r6, reverse6.records.size())),
                    List.copyOf(groupSpread), serviceName);
        }

        void replay(GroupOutput o) {
            clusterZone.records.addAll(o.cluster());
            clustersetZone.records.addAll(o.clusterset());
            reverse4.records.addAll(o.reverse4());
            reverse6.records.addAll(o.reverse6());
            spreadNames.addAll(o.spread());
            if (o.serviceName() != null) serviceNames.add(o.serviceName());
        }

        final List<Name> groupSpread = new ArrayList<>();

        void spread(Name n) {
            spreadNames.add(n);
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
                podNamespaceByIp.putIfAbsent(ip, p.namespace().toLowerCase(Locale.ROOT));
                if (settings.pods() == MeshSettings.PodRecords.VERIFIED) {
                    Name owner = Names.under(Names.dashed(ip) + "." + p.namespace() + ".pod", zone);
                    if (owner != null) clusterZone.add(address(owner, ttl, ip));
                }
            }
        }

        // ---- ServiceEntry hosts ----

        void compileServiceEntries(List<CatalogEntry.ServiceEntry> entries) {
            for (CatalogEntry.ServiceEntry se : entries) {
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
                        LinkedHashSet<Record> set = wildcardHosts.computeIfAbsent(new Name(owner, 1), k -> new LinkedHashSet<>());
                        for (InetAddress ip : ips) set.add(address(owner, ttl, ip));
                        continue;
                    }
                    ZoneBuilder z = zoneForHost(owner);
                    if (z == clusterZone && serviceNames.contains(owner)) {
                        continue; // a Kubernetes service of that name wins over a ServiceEntry host
                    }
                    Set<InetAddress> done = seAddresses.computeIfAbsent(owner, k -> new HashSet<>());
                    for (InetAddress ip : ips) {
                        if (done.add(ip)) z.add(address(owner, ttl, ip)); // several entries may name one host
                    }
                }
            }
        }

        final Map<Name, Set<InetAddress>> seAddresses = new HashMap<>();

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
            // Outside our domains: a zone of its own, not authoritative (the snapshot's overlay: exactly this name).
            return hostZones.computeIfAbsent(owner, o -> new ZoneBuilder(o, false));
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
            (ip instanceof Inet4Address ? reverse4 : reverse6).add(new PTRRecord(owner, DClass.IN, ttl, target));
        }

        final Map<String, Name> nsSuffixes = new HashMap<>();

        /** {@code <ns>.svc.<domain>}, built once per namespace and domain. */
        Name nsSuffix(String ns, Name domain) {
            return nsSuffixes.computeIfAbsent(ns + "|" + domain, k -> Names.under(ns + ".svc", domain));
        }

        final Map<String, Name> srvPrefixes = new HashMap<>();

        ServiceGroup group(Map<String, ServiceGroup> groups, String ns, String name) {
            return groups.computeIfAbsent(ns + "/" + name, k -> new ServiceGroup(ns, name));
        }
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
