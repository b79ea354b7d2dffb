package io.meshdns.dns.kubernetes;

import io.meshdns.dns.base.Names;

import io.meshdns.dns.snapshot.MeshIndex.ExportScope;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.Kind;
import org.xbill.DNS.Name;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The records of one ServiceEntry host, from every ServiceEntry that names it. Pure.
 *
 * <p><b>Several entries for one host</b> are not unioned (two entries' Istio VIPs would both be answered, and
 * sidecars route each to its own entry's config): one entry answers, the first in {@link HostPrecedence} order
 * (Istio's: the oldest) that has an address. An entry's addresses are, in order: its own {@code spec.addresses};
 * the VIPs discovery chose for the host ({@code allocatedVips}: Istio's {@code status.addresses}, or discovery's
 * own); the IP endpoints of a DNS/STATIC entry. The host is visible to every namespace any of the entries exports
 * it to.
 *
 * <p><b>Wildcard hosts</b> ({@code *.wild.example}) answer every name below them, at any depth, that no exact host
 * holds. One over a Kubernetes zone ({@code *.shop.svc.cluster.local}, {@code *.svc.clusterset.local}) would
 * shadow the Service names and the NXDOMAINs the spec requires: it is refused with a warning, never answered.
 */
final class ServiceEntryRecords implements KindRecords<String> {
    @Override
    public Set<Kind> kinds() {
        return Set.of(Kind.SERVICE_ENTRY);
    }

    /** A Service holding a host's name wins over the host: this operation's Service names must be known first. */
    @Override
    public Set<Kind> compiledAfter() {
        return Set.of(Kind.SERVICE);
    }

    /** Every host the entry names: one contributor per host, shared by every entry naming it. */
    @Override
    public Collection<String> contributors(CatalogEntry entry) {
        if (!(entry instanceof CatalogEntry.ServiceEntry se)) return List.of();
        List<String> hosts = new ArrayList<>(se.hosts().size());
        for (String raw : se.hosts()) hosts.add(key(raw));
        return hosts;
    }

    @Override
    public String id(String host) {
        return "host " + host;
    }

    /** A Service appearing or going away re-checks the host of its name (a Service wins over the host). */
    @Override
    public String shadowedBy(Name serviceName) {
        return key(serviceName.toString());
    }

    /** One host from every entry naming it, outside dropped clusters and (while a healthy one names it) unhealthy ones. */
    @Override
    public void build(String host, List<CatalogEntry> fed, CompileInputs in, Predicate<Name> serviceNames, Contribution out) {
        List<CatalogEntry.ServiceEntry> entries = new ArrayList<>();
        for (CatalogEntry e : fed) {
            if (e instanceof CatalogEntry.ServiceEntry se && !in.dropped.contains(se.cluster())) entries.add(se);
        }
        Set<String> left = ClusterHealthPolicy.leftOut(in.unhealthy, entries.stream().map(CatalogEntry.ServiceEntry::cluster).toList());
        entries.removeIf(se -> left.contains(se.cluster()));
        entries.sort(HostPrecedence.order(in::isLocal)); // the same order on every node of a cluster
        build(in, host, entries, serviceNames, out);
    }

    /**
     * @param host          the host, lower case, without trailing dot
     * @param entries       every entry naming it, in {@link HostPrecedence} order
     * @param serviceExists whether a Kubernetes Service holds a name (it wins over a ServiceEntry host in the cluster domain)
     */
    private static void build(CompileInputs in, String host, List<CatalogEntry.ServiceEntry> entries, Predicate<Name> serviceExists,
                              Contribution out) {
        if (entries.isEmpty()) return;
        Name owner = Names.under(host, Name.root);
        if (owner == null) {
            out.warn("ServiceEntry " + entries.get(0).ref() + ": host '" + host + "' is not a DNS name");
            return;
        }
        if (owner.isWild() && inKubernetesZone(in, owner)) {
            out.warn("ServiceEntry " + entries.get(0).ref() + ": wildcard host '" + host + "' would shadow the Kubernetes zone "
                    + "it lies in; not answered");
            return;
        }
        List<InetAddress> ips = List.of();
        for (CatalogEntry.ServiceEntry se : entries) {
            for (int kind = 0; kind < 3 && ips.isEmpty(); kind++) {
                ips = addresses(se, host, kind, out);
            }
            if (!ips.isEmpty()) break;
        }
        if (ips.isEmpty()) return; // nothing to answer: the name forwards (or gets the placeholder under a suffix)
        List<ExportScope> scopes = new ArrayList<>();
        for (CatalogEntry.ServiceEntry se : entries) {
            scopes.add(ExportScopes.of(se.exportTo(), se.namespace(), in.settings.defaultExportTo(), false));
        }
        ExportScope scope = ExportScopes.union(scopes);
        if (owner.isWild() && !in.inOurZones(owner)) {
            // Outside our zones a wildcard cannot live in the exact-match overlay: answered before forwarding.
            for (InetAddress ip : ips) out.wildcards.add(MeshZoneCompiler.address(owner, in.ttl, ip));
            if (scope != null) out.wildcardScopes.put(new Name(owner, 1), scope);
            return;
        }
        Name zoneKey = in.zoneKeyForHost(owner);
        if (in.zone.equals(zoneKey) && serviceExists.test(owner)) return; // a Kubernetes service of that name wins
        Set<InetAddress> done = new LinkedHashSet<>(ips);
        for (InetAddress ip : done) out.add(zoneKey, MeshZoneCompiler.address(owner, in.ttl, ip));
        if (scope != null) {
            if (owner.isWild()) out.wildcardScopes.put(new Name(owner, 1), scope);
            else out.scopes.put(owner, scope);
        }
    }

    /** Whether a wildcard's parent lies in the cluster domain or the clusterset zone. */
    private static boolean inKubernetesZone(CompileInputs in, Name wildcard) {
        Name parent = new Name(wildcard, 1);
        return parent.subdomain(in.zone) || (in.clusterset != null && parent.subdomain(in.clusterset));
    }

    /** The entry's addresses of one kind for {@code host}: 0 = spec.addresses, 1 = allocatedVips, 2 = IP endpoints. */
    private static List<InetAddress> addresses(CatalogEntry.ServiceEntry se, String host, int kind, Contribution out) {
        return switch (kind) {
            case 0 -> {
                List<InetAddress> own = new ArrayList<>();
                for (String a : se.addresses()) {
                    InetAddress ip = Names.ip(hostPart(a));
                    if (ip == null) out.warn("ServiceEntry " + se.ref() + ": address '" + a + "' is not an IP or single-host CIDR, not published");
                    else own.add(ip);
                }
                yield own;
            }
            case 1 -> parseAll(se.allocatedVips().getOrDefault(host, se.allocatedVips().getOrDefault(host + ".", List.of())));
            default -> "DNS".equalsIgnoreCase(se.resolution()) || "STATIC".equalsIgnoreCase(se.resolution())
                    || "DNS_ROUND_ROBIN".equalsIgnoreCase(se.resolution()) ? parseAll(se.endpointAddresses()) : List.of();
        };
    }

    private static List<InetAddress> parseAll(List<String> texts) {
        List<InetAddress> out = new ArrayList<>();
        for (String t : texts) {
            InetAddress ip = Names.ip(hostPart(t));
            if (ip != null) out.add(ip);
        }
        return out;
    }

    /** {@code 10.0.0.1/32} → {@code 10.0.0.1}; other prefixes stay as they are (and then fail to parse as an IP). */
    static String hostPart(String text) {
        int slash = text.indexOf('/');
        if (slash < 0) return text;
        String prefix = text.substring(slash + 1);
        String host = text.substring(0, slash);
        return (prefix.equals("32") && host.indexOf(':') < 0) || (prefix.equals("128") && host.indexOf(':') >= 0) ? host : text;
    }

    /** A host as the index keys it: lower case, no trailing dot. */
    static String key(String host) {
        return ClusterDomainRecords.stripDot(host.toLowerCase(java.util.Locale.ROOT));
    }
}
