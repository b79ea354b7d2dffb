package io.meshdns.dns.kubernetes;

import io.meshdns.dns.base.Names;

import io.meshdns.dns.snapshot.MeshIndex.AddressLocality;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.PortSpec;
import org.xbill.DNS.Name;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code <svc>.<ns>.svc.<clusterset-domain>} and the names under it, for one service name (the MCS DNS
 * specification, KEP-1645). Pure: (inputs, group) → records.
 *
 * <ul>
 *   <li>2.3.1 / 2.4.1: A/AAAA of the ServiceImport's ClusterSetIPs, or (no import) the union of every cluster's
 *       ClusterIPs; headless: the union of ready endpoints, plus {@code <hostname>.<clusterid>.<svc>...} per endpoint.</li>
 *   <li>2.3.2 / 2.4.2: SRV per named port (headless: per endpoint, to the per-endpoint name).</li>
 *   <li>2.3.3: PTR for a ClusterSetIP that has none (one that is not also a local ClusterIP).</li>
 *   <li>2.3.4 / 2.4.4: no {@code <clusterid>.<svc>...} A/AAAA unless {@code meshdns.dns.clusterset.per-cluster-names}.</li>
 * </ul>
 */
final class ClustersetRecords {
    private ClustersetRecords() {
    }

    static void build(CompileInputs in, ServiceGroup g, Name base, Contribution out) {
        Name zone = in.clusterset;
        List<CatalogEntry.Service> copies = g.addressable();
        CatalogEntry.ServiceImport imp = g.imports.isEmpty() ? null
                : (in.local != null && g.imports.containsKey(in.local) ? g.imports.get(in.local) : g.imports.values().iterator().next());
        if (copies.isEmpty() && imp == null) return;
        boolean headless = imp != null ? "Headless".equalsIgnoreCase(imp.importType())
                : copies.stream().allMatch(CatalogEntry.Service::headless);
        List<PortSpec> ports = imp != null && !imp.ports().isEmpty() ? imp.ports()
                : copies.isEmpty() ? List.of() : copies.get(0).ports();
        boolean perCluster = in.settings.clustersetPerClusterNames();
        if (headless) {
            List<ServiceGroup.Endpoint> all = new ArrayList<>();
            for (CatalogEntry.Service s : copies) {
                List<ServiceGroup.Endpoint> eps = g.readyEndpoints(s.cluster());
                all.addAll(eps);
                Name clusterName = perCluster ? Names.under(s.cluster().toLowerCase(Locale.ROOT), base) : null;
                if (clusterName != null) for (ServiceGroup.Endpoint ep : eps) out.add(zone, MeshZoneCompiler.address(clusterName, in.ttl, ep.ip()));
            }
            ServiceGroup.headless(in, out, zone, base, all, ports, false, true);
            return;
        }
        // ClusterSetIP: the ServiceImport's IPs; without one, the union of every cluster's ClusterIPs (there is no
        // MCS controller allocating a clusterset VIP, and each ClusterIP reaches the service in its cluster).
        Set<String> contributing = new HashSet<>();
        if (imp != null && !imp.ips().isEmpty()) {
            Set<InetAddress> localIps = localClusterIps(in, copies);
            for (String text : imp.ips()) {
                InetAddress ip = Names.ip(text);
                if (ip == null) continue;
                out.add(zone, MeshZoneCompiler.address(base, in.ttl, ip));
                if (!localIps.contains(ip)) out.ptr(ip, base, in.ttl); // 2.3.3: only where no PTR exists yet
            }
        } else {
            Map<InetAddress, AddressLocality> localities = new HashMap<>();
            for (CatalogEntry.Service s : copies) {
                for (String text : s.clusterIps()) {
                    InetAddress ip = Names.ip(text);
                    if (ip == null) continue;
                    out.add(zone, MeshZoneCompiler.address(base, in.ttl, ip));
                    contributing.add(s.cluster());
                    localities.putIfAbsent(ip, new AddressLocality(in.isLocal(s.cluster()), null, List.of()));
                }
            }
            out.localities(base, localities); // the local cluster's ClusterIP first, as Submariner Lighthouse prefers it
        }
        if (contributing.size() > 1) out.spread.add(base);
        if (perCluster) {
            for (CatalogEntry.Service s : copies) {
                Name clusterName = Names.under(s.cluster().toLowerCase(Locale.ROOT), base);
                if (clusterName == null) continue;
                for (String text : s.clusterIps()) {
                    InetAddress ip = Names.ip(text);
                    if (ip != null) out.add(zone, MeshZoneCompiler.address(clusterName, in.ttl, ip));
                }
            }
        }
        ServiceGroup.serviceSrv(in, out, zone, base, base, ports);
    }

    /** ClusterIPs of the local copy: they have a cluster.local PTR already. */
    private static Set<InetAddress> localClusterIps(CompileInputs in, List<CatalogEntry.Service> copies) {
        Set<InetAddress> out = new HashSet<>();
        for (CatalogEntry.Service s : copies) {
            if (!in.isLocal(s.cluster())) continue;
            for (String text : s.clusterIps()) {
                InetAddress ip = Names.ip(text);
                if (ip != null) out.add(ip);
            }
        }
        return out;
    }
}
