package io.meshdns.dns.snapshot;

import io.meshdns.dns.base.Names;

import org.xbill.DNS.Name;
import org.xbill.DNS.Record;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the answer-time policies need to know about the catalog, besides the records: compiled with
 * the zones, so a query never walks the catalog.
 *
 * @param namespaces        namespaces known in any cluster (lower case)
 * @param podNamespaceByIp  the local cluster's pod IPs → namespace (autopath: who is asking)
 * @param serviceNames      every {@code <svc>.<ns>.svc.<zone>} of a Service in any cluster, with or without records
 *                          (an empty headless service exists: it is NXDOMAIN, never a placeholder)
 * @param spreadNames       owner names whose A/AAAA RRset merges more than one cluster
 * @param wildcardHosts     wildcard ServiceEntry hosts outside our zones ({@code *.example.com}), by parent
 *                          ({@code example.com.}) → their A/AAAA records owned by the wildcard name. The
 *                          snapshot's non-authoritative overlay matches exact names only, so these are
 *                          answered by {@link MeshQueryHook#beforeForward} instead.
 * @param exportScopes      names visible only to clients of some namespaces (Istio exportTo): a Service's
 *                          {@code <svc>.<ns>.svc.<zone>} (and every name under it), a ServiceEntry host (that
 *                          exact name). Names exported to {@code *} are not in it, so an empty map costs nothing.
 * @param wildcardExportScopes the same for wildcard ServiceEntry hosts, by parent ({@code *.example.com} under
 *                          {@code example.com.})
 * @param placeholderAddresses the ClusterIPs of the placeholder Service ({@code meshdns.dns.placeholder.service}), followed
 *                          live; empty: the fixed {@code placeholder.ipv4}
 * @param localities        owner names whose A/AAAA addresses sit in more than one locality (cluster, zone,
 *                          topology hint) → each address's locality, for the answer-time order
 * @param learnedZone       this node's zone as the endpoints on it say (null: none seen, or no node name set)
 * @param version           the catalog version these were compiled from
 *
 * <p>The collections are taken as they are, not copied: the compiler hands over immutable views of
 * {@link io.meshdns.model.ShardedMap}s it never changes afterwards, so a catalog delta costs what it
 * changed, not a copy of every name.
 */
public record MeshIndex(Set<String> namespaces, Map<InetAddress, String> podNamespaceByIp, Set<Name> serviceNames,
                        Set<Name> spreadNames,
                        Map<Name, List<Record>> wildcardHosts, Map<Name, ExportScope> exportScopes,
                        Map<Name, ExportScope> wildcardExportScopes, List<InetAddress> placeholderAddresses,
                        Map<Name, Map<InetAddress, AddressLocality>> localities, String learnedZone, long version) {
    public static final MeshIndex EMPTY = new MeshIndex(Set.of(), Map.of(), Set.of(), Set.of(), Map.of(), Map.of(), Map.of(), List.of(),
            Map.of(), null, 0);

    public MeshIndex(Set<String> namespaces, Map<InetAddress, String> podNamespaceByIp, Set<Name> serviceNames,
                     Set<Name> spreadNames, Map<Name, List<Record>> wildcardHosts, Map<Name, ExportScope> exportScopes,
                     Map<Name, ExportScope> wildcardExportScopes, List<InetAddress> placeholderAddresses, long version) {
        this(namespaces, podNamespaceByIp, serviceNames, spreadNames, wildcardHosts, exportScopes, wildcardExportScopes,
                placeholderAddresses, Map.of(), null, version);
    }

    /**
     * Where one address of a name sits: in the local cluster or not, its zone (null: unknown) and the zones its
     * topology hint names (empty: none).
     */
    public record AddressLocality(boolean localCluster, String zone, List<String> forZones) {
        public AddressLocality {
            forZones = List.copyOf(forZones);
        }
    }

    public MeshIndex(Set<String> namespaces, Map<InetAddress, String> podNamespaceByIp, Set<Name> serviceNames,
                     Set<Name> spreadNames, Map<Name, List<Record>> wildcardHosts, long version) {
        this(namespaces, podNamespaceByIp, serviceNames, spreadNames, wildcardHosts, Map.of(), Map.of(), List.of(), version);
    }

    /**
     * Who may see a name (Istio's exportTo, resolved): the namespaces listed. {@code subtree}: every name under
     * it too (a Service's SRV, endpoint and per-cluster names); a ServiceEntry host covers only itself.
     */
    public record ExportScope(Set<String> namespaces, boolean subtree) {
        public ExportScope {
            namespaces = Set.copyOf(namespaces);
        }

        public boolean visibleTo(String namespace) {
            return namespace != null && namespaces.contains(namespace);
        }

        /** The union of two scopes of one name (several objects export it); subtree if either is. */
        public ExportScope union(ExportScope other) {
            Set<String> all = new java.util.HashSet<>(namespaces);
            all.addAll(other.namespaces);
            return new ExportScope(all, subtree || other.subtree);
        }
    }

    /** True when some name is exported to fewer than all namespaces: answers may then depend on the client. */
    public boolean exportRestricted() {
        return !exportScopes.isEmpty() || !wildcardExportScopes.isEmpty();
    }

    /**
     * The export scope governing {@code qname}: its own, a Service's above it, or a wildcard host's that
     * matches it; null when it is visible to every client.
     */
    public ExportScope exportScopeOf(Name qname) {
        if (!exportRestricted()) return null;
        ExportScope own = exportScopes.get(qname);
        if (own != null) return own;
        int labels = qname.labels();
        for (int strip = 1; strip < labels; strip++) {
            Name ancestor = new Name(qname, strip);
            ExportScope s = exportScopes.get(ancestor);
            if (s != null && s.subtree()) return s;
            ExportScope w = wildcardExportScopes.get(ancestor); // *.example.com covers names of any depth under it
            if (w != null) return w;
        }
        return null;
    }

    /** Whether a client of {@code clientNamespace} (null: unknown client) may see {@code qname}. */
    public boolean visible(Name qname, String clientNamespace) {
        ExportScope s = exportScopeOf(qname);
        return s == null || s.visibleTo(clientNamespace);
    }
}
