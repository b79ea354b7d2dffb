package io.meshdns.dns.kubernetes;

import io.meshdns.dns.base.Names;

import io.meshdns.model.Catalog;
import io.meshdns.model.ClusterStatus;
import org.xbill.DNS.Name;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What every record builder reads besides its own catalog entries: the node's settings, the local cluster,
 * the gateways and the zones, fixed for one compiled state (a change of any recompiles everything). The two
 * name caches only remember values computed from their keys, so sharing them keeps the builders pure.
 */
final class CompileInputs {
    final MeshSettings settings;
    /** Null: every cluster counts as local (a catalog that marks none). */
    final String local;
    final Map<String, List<InetAddress>> gateways;
    final long ttl;
    final Name zone;
    final Name clusterset;
    /** Authoritative placeholder suffix zones (empty unless the placeholder is on). */
    final Set<Name> suffixZones;
    /** Stale remote clusters whose entries are left out ({@code meshdns.dns.multicluster.stale-clusters=drop}). */
    final Set<String> dropped;
    /** Remote clusters whose gateway is down or that are stale ({@code meshdns.dns.multicluster.unhealthy-clusters=drop}). */
    final Set<String> unhealthy;
    private final Map<String, Name> nsSuffixes = new HashMap<>();
    private final Map<String, Name> srvPrefixes = new HashMap<>();

    CompileInputs(MeshSettings settings, Context context, Set<Name> suffixZones) {
        this.dropped = Set.copyOf(context.dropped());
        this.unhealthy = Set.copyOf(context.unhealthy());
        this.settings = settings;
        this.local = context.local();
        this.gateways = context.gateways();
        this.ttl = settings.ttl();
        this.zone = settings.clusterDomain();
        this.clusterset = settings.clustersetDomain();
        this.suffixZones = Set.copyOf(suffixZones);
    }

    /**
     * Everything a name's records depend on besides its own entries, read from the catalog's cluster list and the
     * settings: when it changes, the compiler recompiles everything.
     *
     * @param local     the local cluster; null: every cluster counts as local (a catalog that marks none)
     * @param gateways  each cluster's east-west gateway addresses, with the node's overrides
     * @param dropped   stale remote clusters left out ({@code stale-clusters=drop})
     * @param unhealthy remote clusters stale or with their gateway down ({@code unhealthy-clusters=drop})
     */
    record Context(String local, Map<String, List<InetAddress>> gateways, Set<String> dropped, Set<String> unhealthy) {
        static Context of(MeshSettings settings, Catalog catalog) {
            String local = localCluster(settings, catalog);
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
            return new Context(local, gateways, dropped, unhealthy);
        }

        private static String localCluster(MeshSettings settings, Catalog catalog) {
            if (settings.localCluster() != null && !settings.localCluster().isBlank()) return settings.localCluster();
            for (ClusterStatus c : catalog.clusters()) {
                if (c.local()) return c.name();
            }
            return null; // no cluster is marked local: every cluster counts as local (single-cluster catalogs)
        }
    }

    boolean isLocal(String cluster) {
        return local == null || local.equals(cluster);
    }

    /** {@code <ns>.svc.<domain>}, built once per namespace and domain. */
    Name nsSuffix(String ns, Name domain) {
        return nsSuffixes.computeIfAbsent(ns + "|" + domain, k -> Names.under(ns + ".svc", domain));
    }

    /** {@code _<port>._<proto>.<base>}; null when the port name is not a DNS label. */
    Name srvOwner(Name base, io.meshdns.model.PortSpec p) {
        Name prefix = srvPrefixes.computeIfAbsent(p.name() + "|" + p.protocol(), k -> relative(
                "_" + p.name().toLowerCase(Locale.ROOT) + "._" + p.protocol().toLowerCase(Locale.ROOT)));
        return prefix == null ? null : Names.concat(prefix, base);
    }

    boolean inOurZones(Name owner) {
        if (owner.subdomain(zone) || owner.subdomain(clusterset)) return true;
        for (Name suffix : suffixZones) {
            if (owner.subdomain(suffix)) return true;
        }
        return false;
    }

    /** The zone key a ServiceEntry host's records go to: one of our zones, or null for the overlay. */
    Name zoneKeyForHost(Name owner) {
        if (owner.subdomain(zone)) return zone;
        if (owner.subdomain(clusterset)) return clusterset;
        for (Name suffix : suffixZones) {
            if (owner.subdomain(suffix)) return suffix;
        }
        return null;
    }

    private static Name relative(String text) {
        try {
            return Name.fromString(text);
        } catch (org.xbill.DNS.TextParseException e) {
            return null;
        }
    }
}
