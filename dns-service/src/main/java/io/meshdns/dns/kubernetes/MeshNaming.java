package io.meshdns.dns.kubernetes;

import io.meshdns.dns.base.Names;
import io.meshdns.dns.snapshot.MeshIndex;

import io.meshdns.dns.InvalidConfigException;
import io.meshdns.model.Catalog;
import io.quarkus.runtime.Startup;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.jboss.logging.Logger;
import org.xbill.DNS.Name;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The naming capability as one bean: validated settings, the compiler, the answer-time hook, and the
 * index of the catalog most recently published. Built at start so that bad config fails the start.
 */
@Startup
@Singleton // no client proxy: called on every query (a proxy looked the instance up on each call)
public class MeshNaming {
    private static final Logger LOG = Logger.getLogger(MeshNaming.class);

    /** An RFC 1123 label, as Kubernetes names namespaces and Services. */
    private static final java.util.regex.Pattern KUBERNETES_NAME = java.util.regex.Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

    private final MeshSettings settings;
    private final MeshZoneCompiler compiler;
    private final MeshAnswerPolicy policy;
    private final MeshQueryHook hook;
    private final AtomicReference<MeshIndex> index = new AtomicReference<>(MeshIndex.EMPTY);

    @Inject
    public MeshNaming(KubernetesDnsConfig config) {
        this(settings(config));
    }

    public MeshNaming(MeshSettings settings) {
        this.settings = settings;
        this.compiler = new MeshZoneCompiler(settings);
        this.policy = new MeshAnswerPolicy(settings);
        this.hook = new MeshQueryHook(policy);
    }

    public MeshSettings settings() {
        return settings;
    }

    /** Compiles {@code catalog}; the caller publishes {@link MeshZones#zones()} then calls {@link #activate}. */
    public MeshZones compile(Catalog catalog) {
        MeshZones zones = compiler.compile(catalog);
        for (String w : zones.warnings()) LOG.warn(w);
        return zones;
    }

    /** Moves the compiled catalog to {@code next}, recompiling only what {@code changed} refs touch. */
    public MeshZoneCompiler.MeshUpdate update(Catalog next, java.util.Collection<io.meshdns.model.ObjectRef> changed) {
        MeshZoneCompiler.MeshUpdate update = compiler.update(next, changed);
        for (String w : update.warnings()) LOG.warn(w);
        return update;
    }

    public MeshZoneCompiler compiler() {
        return compiler;
    }

    /**
     * Records the index of the zones just published, for readers outside the query path (status, tests).
     * Queries read the index their snapshot carries, never this one.
     */
    public void activate(MeshIndex published) {
        index.set(published);
    }

    public MeshIndex index() {
        return index.get();
    }

    /** The query handler's hook (placeholder, pod names, autopath, ExternalName chase, spread). */
    public MeshQueryHook hook() {
        return hook;
    }

    public MeshAnswerPolicy policy() {
        return policy;
    }

    /** {@code meshdns.dns.multicluster.stale-clusters}. */
    /** What happens to a remote cluster's records when it is stale (or, for the health policy, unhealthy). */
    enum StaleClusters {
        KEEP, DROP
    }

    /** Validates every key, failing with the key's name. */
    static MeshSettings settings(KubernetesDnsConfig c) {
        Name clusterDomain = name("meshdns.dns.cluster-domain", c.clusterDomain());
        Name clustersetDomain = name("meshdns.dns.clusterset-domain", c.clustersetDomain());
        MeshSettings.RemoteServicePolicy remote = enumValue("meshdns.dns.remote-service-policy", c.remoteServicePolicy(),
                MeshSettings.RemoteServicePolicy.class);
        MeshSettings.PodRecords pods = enumValue("meshdns.dns.pods", c.pods(), MeshSettings.PodRecords.class);
        MeshSettings.Spread spread = enumValue("meshdns.dns.multicluster.spread", c.multicluster().spread(), MeshSettings.Spread.class);
        if (c.kubernetes().ttl() < 0 || c.kubernetes().ttl() > Integer.MAX_VALUE) {
            throw new InvalidConfigException("meshdns.dns.kubernetes.ttl", "must be between 0 and 2147483647, got " + c.kubernetes().ttl());
        }
        if (c.placeholder().ttl() < 0 || c.placeholder().ttl() > Integer.MAX_VALUE) {
            throw new InvalidConfigException("meshdns.dns.placeholder.ttl", "must be between 0 and 2147483647, got " + c.placeholder().ttl());
        }
        Map<String, List<InetAddress>> gateways = new HashMap<>();
        for (Map.Entry<String, String> e : c.clusterGateways().entrySet()) {
            List<InetAddress> ips = new ArrayList<>();
            for (String part : e.getValue().split(",")) {
                if (part.isBlank()) continue;
                InetAddress ip = Names.ip(part.trim());
                if (ip == null) {
                    throw new InvalidConfigException("meshdns.dns.cluster-gateways." + e.getKey(), "'" + part.trim() + "' is not an IP address");
                }
                ips.add(ip);
            }
            gateways.put(e.getKey(), ips);
        }
        Inet4Address placeholderIp = null;
        if (c.placeholder().ipv4().isPresent()) {
            InetAddress ip = Names.ip(c.placeholder().ipv4().get().trim());
            if (!(ip instanceof Inet4Address v4)) {
                throw new InvalidConfigException("meshdns.dns.placeholder.ipv4", "'" + c.placeholder().ipv4().get() + "' is not an IPv4 address");
            }
            placeholderIp = v4;
        }
        List<Name> suffixes = new ArrayList<>();
        for (String s : c.placeholder().serviceEntrySuffixes().orElse(List.of())) {
            if (!s.isBlank()) suffixes.add(name("meshdns.dns.placeholder.service-entry-suffixes", s.trim()));
        }
        String placeholderService = c.placeholder().service().map(String::trim).filter(x -> !x.isEmpty()).orElse(null);
        if (placeholderService != null) {
            int slash = placeholderService.indexOf('/');
            if (slash <= 0 || !KUBERNETES_NAME.matcher(placeholderService.substring(0, slash)).matches()
                    || !KUBERNETES_NAME.matcher(placeholderService.substring(slash + 1)).matches()) {
                throw new InvalidConfigException("meshdns.dns.placeholder.service", "'" + placeholderService + "' is not <namespace>/<name>");
            }
        }
        MeshSettings.Placeholder placeholder = new MeshSettings.Placeholder(c.placeholder().enabled(), placeholderIp, suffixes,
                c.placeholder().ttl(), placeholderService);
        String cluster = c.clusterName().filter(s -> !s.isBlank()).orElse(null);
        StaleClusters staleClusters = enumValue("meshdns.dns.multicluster.stale-clusters", c.multicluster().staleClusters(), StaleClusters.class);
        StaleClusters unhealthyClusters = enumValue("meshdns.dns.multicluster.unhealthy-clusters", c.multicluster().unhealthyClusters(),
                StaleClusters.class);
        List<String> exportDefault = new ArrayList<>();
        for (String scope : c.defaultExportTo()) {
            String t = scope.trim();
            if (t.isEmpty()) continue;
            if (!t.equals("*") && !t.equals(".") && !t.equals("~") && !KUBERNETES_NAME.matcher(t).matches()) {
                throw new InvalidConfigException("meshdns.dns.default-export-to", "'" + t + "' is not '*', '.', '~' or a namespace name");
            }
            exportDefault.add(t);
        }
        if (exportDefault.isEmpty()) exportDefault.add("*");
        MeshSettings.Locality locality = new MeshSettings.Locality(
                enumValue("meshdns.dns.locality.order", c.locality().order(), MeshSettings.Locality.Order.class),
                c.locality().zone().map(String::trim).orElse(null), c.locality().nodeName().map(String::trim).orElse(null));
        try {
            return new MeshSettings(clusterDomain, clustersetDomain, cluster, remote, gateways, pods, c.kubernetes().ttl(), spread,
                    placeholder, c.autopath().enabled(), c.multicluster().failoverToRemote(), c.clusterset().perClusterNames(),
                    exportDefault, staleClusters == StaleClusters.DROP, unhealthyClusters == StaleClusters.DROP, locality);
        } catch (IllegalArgumentException e) {
            // the message starts with the key that is missing (placeholder.ipv4)
            throw new InvalidConfigException("meshdns.dns.placeholder.ipv4", e.getMessage(), e);
        }
    }

    private static Name name(String key, String value) {
        try {
            return Names.absolute(value.trim());
        } catch (IllegalArgumentException e) {
            throw new InvalidConfigException(key, "'" + value + "' is not a DNS name", e);
        }
    }

    private static <E extends Enum<E>> E enumValue(String key, String value, Class<E> type) {
        String normal = value.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        for (E e : type.getEnumConstants()) {
            if (e.name().equals(normal)) return e;
        }
        List<String> allowed = new ArrayList<>();
        for (E e : type.getEnumConstants()) allowed.add(e.name().toLowerCase(Locale.ROOT).replace('_', '-'));
        throw new InvalidConfigException(key, "'" + value + "' is not one of " + allowed);
    }
}
