package io.meshdns.dns.kubernetes;

import io.meshdns.dns.base.Names;

import io.meshdns.dns.snapshot.MeshIndex;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.Kind;
import org.xbill.DNS.Name;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * One service name ({@code namespace/name}) across clusters, from its Services, EndpointSlices and ServiceImports:
 * both name families ({@link ClusterDomainRecords}, {@link ClustersetRecords}), who may see them (exportTo), the
 * zone this node's endpoints sit in, and the placeholder Service's addresses. Pure.
 */
final class ServiceNameRecords implements KindRecords<String> {
    @Override
    public Set<Kind> kinds() {
        return Set.of(Kind.SERVICE, Kind.ENDPOINT_SLICE, Kind.SERVICE_IMPORT);
    }

    /** The service name an entry belongs to; none for a slice without a service. */
    @Override
    public Collection<String> contributors(CatalogEntry e) {
        if (e instanceof CatalogEntry.Service s) return List.of(key(s.namespace(), s.name()));
        if (e instanceof CatalogEntry.ServiceImport si) return List.of(key(si.namespace(), si.name()));
        if (e instanceof CatalogEntry.EndpointSlice es && es.serviceName() != null) return List.of(key(es.namespace(), es.serviceName()));
        return List.of();
    }

    private static String key(String namespace, String name) {
        return namespace + "/" + name;
    }

    @Override
    public String id(String key) {
        return "service " + key;
    }

    /** A Service makes its namespace known (a namespace the catalog does not list, as in a manifests folder). */
    @Override
    public List<IndexCounts.Fact> indexFacts(CatalogEntry entry, CompileInputs in) {
        return entry instanceof CatalogEntry.Service s ? List.of(new IndexCounts.NamespaceExists(s.namespace())) : List.of();
    }

    @Override
    public void build(String key, List<CatalogEntry> entries, CompileInputs in, Predicate<Name> serviceNames, Contribution out) {
        ServiceGroup g = group(key, entries, in);
        if (g != null) {
            g.leaveOut(ClusterHealthPolicy.leftOut(in.unhealthy, g.clusters()));
            for (List<CatalogEntry.EndpointSlice> slices : g.slicesByCluster.values()) {
                slices.sort((a, b) -> a.name().compareTo(b.name()));
            }
            buildGroup(in, g, out);
            out.nodeZone = nodeZone(in, g);
        }
        if (key.equals(in.settings.placeholder().service())) out.placeholderAddresses = placeholderAddresses(in, g);
    }

    /** The name's parts outside dropped clusters; null when there are none. */
    private static ServiceGroup group(String key, List<CatalogEntry> entries, CompileInputs in) {
        ServiceGroup g = null;
        for (CatalogEntry e : entries) {
            if (in.dropped.contains(e.cluster())) continue;
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
        return g;
    }

    /** Both name families of one service name, and who may see them. */
    private static void buildGroup(CompileInputs in, ServiceGroup g, Contribution c) {
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
            scopes.add(ExportScopes.of(s.exportTo(), g.namespace, in.settings.defaultExportTo(), true));
        }
        if (scopes.isEmpty()) scopes.add(ExportScopes.of(List.of(), g.namespace, in.settings.defaultExportTo(), true));
        MeshIndex.ExportScope scope = ExportScopes.union(scopes);
        if (scope != null && !c.records.isEmpty()) {
            c.scopes.put(base, scope);
            if (setBase != null) c.scopes.put(setBase, scope);
        }
    }

    /** The zone this group's local endpoints on this node carry, when the zone is to be learned (no setting). */
    private static String nodeZone(CompileInputs in, ServiceGroup g) {
        MeshSettings.Locality l = in.settings.locality();
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
    private static List<InetAddress> placeholderAddresses(CompileInputs in, ServiceGroup g) {
        if (g == null) return List.of();
        List<CatalogEntry.Service> copies = new ArrayList<>(g.addressable());
        copies.sort(Comparator.comparing((CatalogEntry.Service s) -> !in.isLocal(s.cluster())));
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
}
