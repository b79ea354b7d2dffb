package io.meshdns.dns.kubernetes;

import io.meshdns.dns.base.Names;

import io.meshdns.dns.snapshot.MeshIndex.AddressLocality;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.EndpointAddress;
import io.meshdns.model.PortSpec;
import io.meshdns.model.ServiceType;
import org.xbill.DNS.Name;
import org.xbill.DNS.SRVRecord;
import org.xbill.DNS.DClass;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The catalog grouped the way names are: one service name (namespace/name) across clusters, with its
 * EndpointSlices and ServiceImports; plus the helpers both name families (cluster domain, clusterset) use.
 */
final class ServiceGroup {
    final String namespace;
    final String name;
    final Map<String, CatalogEntry.Service> byCluster = new TreeMap<>();
    final Map<String, List<CatalogEntry.EndpointSlice>> slicesByCluster = new TreeMap<>();
    final Map<String, CatalogEntry.ServiceImport> imports = new TreeMap<>();

    ServiceGroup(String namespace, String name) {
        this.namespace = namespace;
        this.name = name;
    }

    String id() {
        return namespace + "/" + name;
    }

    /** Every cluster that has any part of this name: its Service, slices or import. */
    java.util.Set<String> clusters() {
        java.util.Set<String> all = new java.util.TreeSet<>(byCluster.keySet());
        all.addAll(slicesByCluster.keySet());
        all.addAll(imports.keySet());
        return all;
    }

    /** Leaves these clusters' parts out of the name's answers. */
    void leaveOut(java.util.Set<String> clusters) {
        if (clusters.isEmpty()) return;
        byCluster.keySet().removeAll(clusters);
        slicesByCluster.keySet().removeAll(clusters);
        imports.keySet().removeAll(clusters);
    }

    /** One ready endpoint address with the hostname label it is published under, and its zone and topology hint. */
    record Endpoint(String cluster, String hostname, InetAddress ip, List<PortSpec> ports, String zone, List<String> forZones) {
    }

    /**
     * The zone of an endpoint (ready or not) of {@code cluster}'s copy on {@code node}: the EndpointSlice controller
     * copies the Node's zone label into it. Null when none is there.
     */
    String zoneOfNode(String cluster, String node) {
        for (CatalogEntry.EndpointSlice slice : slicesByCluster.getOrDefault(cluster, List.of())) {
            for (EndpointAddress ea : slice.endpoints()) {
                if (node.equals(ea.nodeName()) && ea.zone() != null && !ea.zone().isEmpty()) return ea.zone();
            }
        }
        return null;
    }

    /**
     * The ready endpoints of {@code cluster}'s copy (Kubernetes DNS spec 2.1: ready by its condition, or every
     * endpoint when the Service tolerates unready ones: {@code publishNotReadyAddresses} or the
     * {@code tolerate-unready-endpoints} annotation).
     */
    List<Endpoint> readyEndpoints(String cluster) {
        CatalogEntry.Service svc = byCluster.get(cluster);
        boolean tolerant = svc != null && svc.publishNotReady();
        List<Endpoint> out = new ArrayList<>();
        Set<String> seen = new HashSet<>(); // one endpoint may sit in two slices while they are being rebalanced
        for (CatalogEntry.EndpointSlice slice : slicesByCluster.getOrDefault(cluster, List.of())) {
            for (EndpointAddress ea : slice.endpoints()) {
                if (!ea.ready() && !tolerant) continue;
                for (String text : ea.addresses()) {
                    InetAddress ip = Names.ip(text);
                    if (ip == null) continue; // FQDN-typed slices and garbage: not an address record
                    String host = ea.hostname() != null && !ea.hostname().isEmpty()
                            ? ea.hostname().toLowerCase(Locale.ROOT)
                            : Names.dashed(ip); // the spec's "system-assigned identifier", as CoreDNS makes it
                    if (seen.add(host + "/" + text)) out.add(new Endpoint(cluster, host, ip, slice.ports(), ea.zone(), ea.forZones()));
                }
            }
        }
        return out;
    }

    /** Copies that are not ExternalName, in cluster order. */
    List<CatalogEntry.Service> addressable() {
        return byCluster.values().stream().filter(s -> s.serviceType() != ServiceType.EXTERNAL_NAME).toList();
    }

    /** SRV per named port at {@code base} → {@code target} (unnamed ports have none: spec). */
    static void serviceSrv(CompileInputs in, Contribution out, Name zoneKey, Name base, Name target, List<PortSpec> ports) {
        for (PortSpec p : ports) {
            if (p.name().isEmpty()) continue;
            Name owner = in.srvOwner(base, p);
            if (owner != null) out.add(zoneKey, new SRVRecord(owner, DClass.IN, in.ttl, 0, 100, p.port(), target));
        }
    }

    /**
     * A/AAAA at {@code base} for {@code endpoints}, one name per endpoint ({@code <hostname>.<base>}, or with
     * {@code clusterLabel} {@code <hostname>.<cluster>.<base>}), SRV per named port × endpoint, PTR when asked.
     * An empty list produces nothing: the name does not exist (NXDOMAIN).
     */
    static void headless(CompileInputs in, Contribution out, Name zoneKey, Name base, List<Endpoint> endpoints,
                         List<PortSpec> servicePorts, boolean withPtr, boolean clusterLabel) {
        Set<String> contributing = new HashSet<>();
        Set<InetAddress> seen = new HashSet<>();
        Map<InetAddress, AddressLocality> localities = new java.util.HashMap<>();
        for (Endpoint ep : endpoints) {
            if (seen.add(ep.ip())) {
                out.add(zoneKey, MeshZoneCompiler.address(base, in.ttl, ep.ip()));
                localities.put(ep.ip(), new AddressLocality(in.isLocal(ep.cluster()), ep.zone(), ep.forZones()));
            }
            contributing.add(ep.cluster());
            Name host = endpointName(base, ep, clusterLabel);
            if (host == null) continue;
            out.add(zoneKey, MeshZoneCompiler.address(host, in.ttl, ep.ip()));
            if (withPtr) out.ptr(ep.ip(), host, in.ttl);
            for (PortSpec p : servicePorts) {
                if (p.name().isEmpty()) continue;
                Name owner = in.srvOwner(base, p);
                if (owner == null) continue;
                out.add(zoneKey, new SRVRecord(owner, DClass.IN, in.ttl, 0, 100, endpointPort(ep, p), host));
            }
        }
        if (contributing.size() > 1) out.spread.add(base);
        out.localities(base, localities);
    }

    private static Name endpointName(Name base, Endpoint ep, boolean clusterLabel) {
        if (!clusterLabel) return Names.child(ep.hostname(), base);
        Name perCluster = Names.child(ep.cluster().toLowerCase(Locale.ROOT), base);
        return perCluster == null ? null : Names.child(ep.hostname(), perCluster);
    }

    /** The endpoint's own port of the same name (the pod's real port: there is no proxy in front of a headless service). */
    private static int endpointPort(Endpoint ep, PortSpec servicePort) {
        for (PortSpec p : ep.ports()) {
            if (p.name().equals(servicePort.name()) && p.protocol().equalsIgnoreCase(servicePort.protocol())) return p.port();
        }
        return servicePort.port();
    }
}
