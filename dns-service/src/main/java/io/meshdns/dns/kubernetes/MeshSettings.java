package io.meshdns.dns.kubernetes;

import io.meshdns.dns.base.Names;

import org.xbill.DNS.Name;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The node's naming policy, as plain values: what {@link MeshZoneCompiler} and {@link MeshAnswerPolicy}
 * need, already validated (built from {@link KubernetesDnsConfig} at start, or directly in tests).
 *
 * @param clusterDomain        the Kubernetes cluster domain, e.g. {@code cluster.local.}
 * @param clustersetDomain     the MCS domain, {@code clusterset.local.}
 * @param localCluster         the local cluster's name; null means "the cluster the catalog marks local",
 *                             and when the catalog marks none, every cluster counts as local
 * @param remotePolicy         what a service that exists only in remote clusters answers
 * @param gatewayOverrides     east-west gateway addresses per cluster, overriding the catalog's
 * @param pods                 pod A records mode
 * @param ttl                  TTL of every compiled record
 * @param spread               answer-time order of multi-cluster RRsets
 * @param placeholder          the lazyload placeholder policy
 * @param autopath             answer the first search-path expansion in one round trip
 * @param failoverToRemote     a local Service with no ready endpoint answers its remote copies' (when they have ready ones)
 * @param clustersetPerClusterNames also publish {@code <cluster>.<svc>.<ns>.svc.<clusterset>} (MCS 2.3.4/2.4.4 say they
 *                             should not exist; off by default)
 * @param defaultExportTo      Istio's {@code defaultServiceExportTo}: the exportTo of objects that set none
 * @param dropStaleClusters    a remote cluster discovery marks stale (unreachable for its stale-after) loses its records
 *                             here; false keeps its last known state
 * @param dropUnhealthyClusters a remote cluster whose east-west gateway discovery's probes find down, or that is stale,
 *                             leaves the answers of every name another, healthy cluster also answers (fail-open: a
 *                             name only unhealthy clusters answer keeps them all, as Submariner Lighthouse does)
 * @param locality             which addresses of a name that several clusters or zones answer come first
 */
public record MeshSettings(Name clusterDomain, Name clustersetDomain, String localCluster,
                           RemoteServicePolicy remotePolicy, Map<String, List<InetAddress>> gatewayOverrides,
                           PodRecords pods, long ttl, Spread spread, Placeholder placeholder, boolean autopath,
                           boolean failoverToRemote, boolean clustersetPerClusterNames, List<String> defaultExportTo,
                           boolean dropStaleClusters, boolean dropUnhealthyClusters, Locality locality) {

    public MeshSettings(Name clusterDomain, Name clustersetDomain, String localCluster,
                        RemoteServicePolicy remotePolicy, Map<String, List<InetAddress>> gatewayOverrides,
                        PodRecords pods, long ttl, Spread spread, Placeholder placeholder, boolean autopath,
                        boolean failoverToRemote, boolean clustersetPerClusterNames, List<String> defaultExportTo,
                        boolean dropStaleClusters) {
        this(clusterDomain, clustersetDomain, localCluster, remotePolicy, gatewayOverrides, pods, ttl, spread, placeholder, autopath,
                failoverToRemote, clustersetPerClusterNames, defaultExportTo, dropStaleClusters, false, Locality.DEFAULT);
    }

    public MeshSettings(Name clusterDomain, Name clustersetDomain, String localCluster,
                        RemoteServicePolicy remotePolicy, Map<String, List<InetAddress>> gatewayOverrides,
                        PodRecords pods, long ttl, Spread spread, Placeholder placeholder, boolean autopath) {
        this(clusterDomain, clustersetDomain, localCluster, remotePolicy, gatewayOverrides, pods, ttl, spread, placeholder, autopath,
                true, false, List.of("*"), false);
    }

    public MeshSettings {
        gatewayOverrides = Map.copyOf(gatewayOverrides);
        defaultExportTo = List.copyOf(defaultExportTo);
        if (remotePolicy == RemoteServicePolicy.PLACEHOLDER && placeholder.ipv4() == null) {
            throw new IllegalArgumentException("meshdns.dns.remote-service-policy=placeholder needs meshdns.dns.placeholder.ipv4");
        }
        if (placeholder.enabled() && placeholder.ipv4() == null && placeholder.service() == null) {
            throw new IllegalArgumentException("meshdns.dns.placeholder.ipv4 (or .service) is required when meshdns.dns.placeholder.enabled=true");
        }
    }

    /** Defaults: cluster.local, remote ClusterIPs, pods disabled, TTL 5, shuffle, no placeholder, no autopath. */
    public static MeshSettings defaults() {
        return new MeshSettings(Names.absolute("cluster.local"), Names.absolute("clusterset.local"), null,
                RemoteServicePolicy.CLUSTER_IP, Map.of(), PodRecords.DISABLED, 5, Spread.SHUFFLE,
                Placeholder.DISABLED, false);
    }

    public MeshSettings withLocalCluster(String cluster) {
        return with(b -> b.localCluster = cluster);
    }

    public MeshSettings withRemotePolicy(RemoteServicePolicy p) {
        return with(b -> b.remotePolicy = p);
    }

    public MeshSettings withGatewayOverrides(Map<String, List<InetAddress>> g) {
        return with(b -> b.gatewayOverrides = g);
    }

    public MeshSettings withPods(PodRecords p) {
        return with(b -> b.pods = p);
    }

    public MeshSettings withPlaceholder(Placeholder p) {
        return with(b -> b.placeholder = p);
    }

    public MeshSettings withClustersetPerClusterNames(boolean on) {
        return with(b -> b.clustersetPerClusterNames = on);
    }

    public MeshSettings withDropStaleClusters(boolean drop) {
        return with(b -> b.dropStaleClusters = drop);
    }

    public MeshSettings withDropUnhealthyClusters(boolean drop) {
        return with(b -> b.dropUnhealthyClusters = drop);
    }

    public MeshSettings withLocality(Locality l) {
        return with(b -> b.locality = l);
    }

    public MeshSettings withDefaultExportTo(List<String> scopes) {
        return with(b -> b.defaultExportTo = scopes);
    }

    /** These settings with {@code change} applied, checked like any others (the canonical constructor). */
    private MeshSettings with(Consumer<Copy> change) {
        Copy copy = new Copy(this);
        change.accept(copy);
        return copy.build();
    }

    /** Every field as a slot, for {@link #with}: the one place that lists them all, so each withX is one line. */
    private static final class Copy {
        Name clusterDomain;
        Name clustersetDomain;
        String localCluster;
        RemoteServicePolicy remotePolicy;
        Map<String, List<InetAddress>> gatewayOverrides;
        PodRecords pods;
        long ttl;
        Spread spread;
        Placeholder placeholder;
        boolean autopath;
        boolean failoverToRemote;
        boolean clustersetPerClusterNames;
        List<String> defaultExportTo;
        boolean dropStaleClusters;
        boolean dropUnhealthyClusters;
        Locality locality;

        Copy(MeshSettings s) {
            clusterDomain = s.clusterDomain;
            clustersetDomain = s.clustersetDomain;
            localCluster = s.localCluster;
            remotePolicy = s.remotePolicy;
            gatewayOverrides = s.gatewayOverrides;
            pods = s.pods;
            ttl = s.ttl;
            spread = s.spread;
            placeholder = s.placeholder;
            autopath = s.autopath;
            failoverToRemote = s.failoverToRemote;
            clustersetPerClusterNames = s.clustersetPerClusterNames;
            defaultExportTo = s.defaultExportTo;
            dropStaleClusters = s.dropStaleClusters;
            dropUnhealthyClusters = s.dropUnhealthyClusters;
            locality = s.locality;
        }

        MeshSettings build() {
            return new MeshSettings(clusterDomain, clustersetDomain, localCluster, remotePolicy, gatewayOverrides, pods, ttl, spread,
                    placeholder, autopath, failoverToRemote, clustersetPerClusterNames, defaultExportTo, dropStaleClusters,
                    dropUnhealthyClusters, locality);
        }
    }

    /**
     * {@code meshdns.dns.locality.*}: the order of the addresses of a name whose endpoints sit in several clusters or
     * zones (headless services, clusterset names). {@code zone}: this node's zone ({@code meshdns.dns.locality.zone}),
     * null to learn it from the endpoints on {@code nodeName} (the EndpointSlice controller copies each Node's zone
     * label into its endpoints).
     */
    public record Locality(Order order, String zone, String nodeName) {
        public static final Locality DEFAULT = new Locality(Order.ZONE, null, null);

        public Locality {
            zone = zone == null || zone.isBlank() ? null : zone;
            nodeName = nodeName == null || nodeName.isBlank() ? null : nodeName;
        }

        /** {@code meshdns.dns.locality.order}. */
        public enum Order {
            /** This node's zone first (topology hints, else the endpoint's zone), then the local cluster, then the rest. */
            ZONE,
            /** The local cluster first, then the rest. */
            CLUSTER,
            /** No preference: the spread setting alone orders the addresses. */
            NONE
        }
    }

    /** {@code meshdns.dns.remote-service-policy}. */
    public enum RemoteServicePolicy {
        /** The remote clusters' ClusterIPs (Istio multi-primary: the sidecar routes them). */
        CLUSTER_IP,
        /** The remote clusters' east-west gateway addresses. */
        GATEWAY,
        /** The placeholder address: the mesh's global sidecar routes by host name. */
        PLACEHOLDER
    }

    /** {@code meshdns.dns.pods}, as CoreDNS's kubernetes plugin names the modes. */
    public enum PodRecords {
        DISABLED, INSECURE, VERIFIED
    }

    /** {@code meshdns.dns.multicluster.spread}. */
    public enum Spread {
        SHUFFLE, ROUND_ROBIN, NONE
    }

    /**
     * The lazyload placeholder. {@code service} ({@code <namespace>/<name>}, e.g. Slime's global-sidecar): the
     * placeholder is that Service's ClusterIPs, followed live from the catalog; {@code ipv4} is the fixed
     * address used while the Service has none (or without a Service). {@code serviceEntrySuffixes} are zones the mesh owns (e.g. {@code service.entry.}):
     * every name under them without a ServiceEntry answers the placeholder.
     */
    public record Placeholder(boolean enabled, Inet4Address ipv4, List<Name> serviceEntrySuffixes, long ttl, String service) {
        public static final Placeholder DISABLED = new Placeholder(false, null, List.of(), 60);

        public Placeholder {
            serviceEntrySuffixes = List.copyOf(serviceEntrySuffixes);
        }

        public Placeholder(boolean enabled, Inet4Address ipv4, List<Name> serviceEntrySuffixes, long ttl) {
            this(enabled, ipv4, serviceEntrySuffixes, ttl, null);
        }
    }
}
