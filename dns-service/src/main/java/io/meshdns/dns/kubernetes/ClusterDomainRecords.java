package io.meshdns.dns.kubernetes;

import io.meshdns.dns.base.Names;

import io.meshdns.model.CatalogEntry;
import io.meshdns.model.ServiceType;
import org.xbill.DNS.CNAMERecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Name;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code <svc>.<ns>.svc.<cluster-domain>} and the names under it, for one service name (Kubernetes DNS
 * specification 1.1.0, sections 2.3 and 2.4), with the node's multi-cluster policy. Pure: (inputs, group) → records.
 */
final class ClusterDomainRecords {
    private ClusterDomainRecords() {
    }

    static void build(CompileInputs in, ServiceGroup g, Name base, Contribution out) {
        CatalogEntry.Service localSvc = null;
        List<CatalogEntry.Service> remote = new ArrayList<>();
        for (CatalogEntry.Service s : g.byCluster.values()) {
            if (in.isLocal(s.cluster()) && localSvc == null) localSvc = s;
            else remote.add(s);
        }
        if (localSvc != null) {
            List<CatalogEntry.Service> readyRemote = in.settings.failoverToRemote() ? failoverTargets(g, localSvc, remote) : List.of();
            if (readyRemote.isEmpty()) {
                // The local service wins: remote copies of the same name are reachable through clusterset.local.
                service(in, out, base, List.of(localSvc), g, true);
                return;
            }
            // No ready endpoint here, ready ones elsewhere: answer where the service really runs.
            remote = readyRemote;
        }
        if (remote.isEmpty()) return;
        CatalogEntry.Service first = remote.get(0);
        if (first.serviceType() == ServiceType.EXTERNAL_NAME) {
            service(in, out, base, List.of(first), g, false);
            return;
        }
        switch (in.settings.remotePolicy()) {
            case CLUSTER_IP -> service(in, out, base, remote, g, false);
            case GATEWAY -> {
                Set<InetAddress> ips = new LinkedHashSet<>();
                Set<String> contributing = new HashSet<>();
                for (CatalogEntry.Service s : remote) {
                    List<InetAddress> gw = in.gateways.getOrDefault(s.cluster(), List.of());
                    if (!gw.isEmpty()) contributing.add(s.cluster());
                    ips.addAll(gw);
                }
                if (ips.isEmpty()) {
                    out.warn("service " + g.id() + " exists only in remote clusters without a known "
                            + "east-west gateway (set meshdns.dns.cluster-gateways.<cluster>); no records");
                    return;
                }
                for (InetAddress ip : ips) out.add(in.zone, MeshZoneCompiler.address(base, in.ttl, ip));
                if (contributing.size() > 1) out.spread.add(base);
                ServiceGroup.serviceSrv(in, out, in.zone, base, base, first.ports());
            }
            case PLACEHOLDER -> {
                out.add(in.zone, MeshZoneCompiler.address(base, in.settings.placeholder().ttl(), in.settings.placeholder().ipv4()));
                ServiceGroup.serviceSrv(in, out, in.zone, base, base, first.ports());
            }
        }
    }

    /**
     * The remote copies to answer instead of a local one that has no ready endpoint: those with ready endpoints of
     * the same kind (headless or not). Empty: the local copy answers. An ExternalName copy never fails over.
     */
    private static List<CatalogEntry.Service> failoverTargets(ServiceGroup g, CatalogEntry.Service localSvc,
                                                           List<CatalogEntry.Service> remote) {
        if (localSvc.serviceType() == ServiceType.EXTERNAL_NAME || remote.isEmpty()) return List.of();
        if (!g.readyEndpoints(localSvc.cluster()).isEmpty()) return List.of();
        List<CatalogEntry.Service> out = new ArrayList<>();
        for (CatalogEntry.Service s : remote) {
            if (s.serviceType() != ServiceType.EXTERNAL_NAME && s.headless() == localSvc.headless()
                    && !g.readyEndpoints(s.cluster()).isEmpty()) out.add(s);
        }
        return out;
    }

    /**
     * The records of one service name from {@code services} (one per cluster; more than one only when
     * remote copies are merged): ClusterIPs, or ready endpoints when every copy is headless, or a CNAME.
     */
    static void service(CompileInputs in, Contribution out, Name base, List<CatalogEntry.Service> services, ServiceGroup g,
                        boolean withPtr) {
        CatalogEntry.Service first = services.get(0);
        if (first.serviceType() == ServiceType.EXTERNAL_NAME) {
            Name target = first.externalName() == null ? null : Names.under(stripDot(first.externalName()), Name.root);
            if (target == null) {
                out.warn("service " + g.id() + ": ExternalName '" + first.externalName() + "' is not a DNS name");
                return;
            }
            out.add(in.zone, new CNAMERecord(base, DClass.IN, in.ttl, target));
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
                        out.warn("service " + g.id() + ": bad ClusterIP '" + text + "'");
                        continue;
                    }
                    if (!seen.add(ip)) continue;
                    out.add(in.zone, MeshZoneCompiler.address(base, in.ttl, ip));
                    contributing.add(s.cluster());
                    if (withPtr) out.ptr(ip, base, in.ttl);
                }
            }
            if (contributing.size() > 1) out.spread.add(base);
            ServiceGroup.serviceSrv(in, out, in.zone, base, base, first.ports());
            return;
        }
        // Headless: the union of ready endpoints of every given copy.
        List<ServiceGroup.Endpoint> endpoints = new ArrayList<>();
        for (CatalogEntry.Service s : services) endpoints.addAll(g.readyEndpoints(s.cluster()));
        ServiceGroup.headless(in, out, in.zone, base, endpoints, first.ports(), withPtr, false);
    }

    static String stripDot(String s) {
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }
}
