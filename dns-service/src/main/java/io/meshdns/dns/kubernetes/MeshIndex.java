package io.meshdns.dns.kubernetes;

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
 * @param version           the catalog version these were compiled from
 *
 * <p>The collections are taken as they are, not copied: the compiler hands over immutable views of
 * {@link io.meshdns.model.ShardedMap}s it never changes afterwards, so a catalog delta costs what it
 * changed, not a copy of every name.
 */
public record MeshIndex(Set<String> namespaces, Map<InetAddress, String> podNamespaceByIp, Set<Name> serviceNames,
                        Set<Name> spreadNames,
                        Map<Name, List<Record>> wildcardHosts, long version) {
    public static final MeshIndex EMPTY = new MeshIndex(Set.of(), Map.of(), Set.of(), Set.of(), Map.of(), 0);
}
