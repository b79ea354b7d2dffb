package io.meshdns.dns.kubernetes;

import io.meshdns.dns.base.Names;
import io.meshdns.dns.snapshot.MeshIndex;

import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Type;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.List;
import java.util.Locale;

/**
 * Answer-time naming rules: decisions that depend on the question (or on who asks) and therefore
 * cannot be compiled into records. Pure: (settings, index, question) → decision; the message plumbing
 * is {@link MeshQueryHook}.
 */
public final class MeshAnswerPolicy {
    private final MeshSettings settings;
    private final int zoneLabels;

    public MeshAnswerPolicy(MeshSettings settings) {
        this.settings = settings;
        this.zoneLabels = settings.clusterDomain().labels();
    }

    public MeshSettings settings() {
        return settings;
    }

    /**
     * A synthesized answer for a name our zones do not hold. {@code records} empty means NODATA: the name
     * exists (for the placeholder or a pod name), only not with the asked type.
     */
    public record Synthesized(List<Record> records) {
    }

    /**
     * What to answer instead of NXDOMAIN for {@code qname} (an insecure pod name, a lazyload placeholder),
     * or null to keep NXDOMAIN. Only ever called for names inside our own zones.
     */
    public Synthesized onNameError(MeshIndex index, Name qname, int qtype) {
        return onNameError(index, qname, qtype, false);
    }

    /**
     * Like {@link #onNameError(MeshIndex, Name, int)}; {@code hiddenFromClient}: the name's Service is not exported to
     * the asking client, which then gets what it would get if the Service did not exist (the placeholder, if it applies).
     */
    public Synthesized onNameError(MeshIndex index, Name qname, int qtype, boolean hiddenFromClient) {
        if (qname.subdomain(settings.clusterDomain())) {
            int rel = qname.labels() - zoneLabels;
            if (rel == 3 && settings.pods() == MeshSettings.PodRecords.INSECURE && label(qname, 2).equals("pod")
                    && index.namespaces().contains(label(qname, 1))) {
                InetAddress ip = Names.undashed(label(qname, 0));
                if (ip != null) return addressAnswer(qname, qtype, List.of(ip), settings.ttl());
            }
            if (rel == 3 && placeholderOn() && label(qname, 2).equals("svc") && index.namespaces().contains(label(qname, 1))
                    && (hiddenFromClient || !index.serviceNames().contains(qname))) {
                // Exactly <svc>.<ns>.svc.<zone> with a namespace that exists somewhere. A search-path expansion such as
                // google.com.svc.<zone> ("com" is no namespace) or www.example.com.default.svc.<zone> (too many labels)
                // never gets here: that is the difference from the CoreDNS template hack. A service that exists but has
                // no records (an empty headless service) stays NXDOMAIN: it is known to be empty, not unknown.
                return placeholder(index, qname, qtype);
            }
            return null;
        }
        if (placeholderOn()) {
            for (Name suffix : settings.placeholder().serviceEntrySuffixes()) {
                if (qname.subdomain(suffix) && qname.labels() > suffix.labels()) return placeholder(index, qname, qtype);
            }
        }
        return null;
    }

    /**
     * Autopath: when {@code client} is a known pod of namespace {@code ns} and {@code qname} is
     * {@code <name>.<ns>.svc.<zone>} (the first expansion of its search path), the name the pod is really
     * after ({@code <name>.}); else null.
     */
    public Name autopathName(MeshIndex index, Name qname, InetAddress client) {
        if (!settings.autopath() || client == null) return null;
        String ns = index.podNamespaceByIp().get(client);
        if (ns == null) return null;
        int rel = qname.labels() - zoneLabels;
        if (rel < 3 || !qname.subdomain(settings.clusterDomain())) return null;
        if (!label(qname, rel - 1).equals("svc") || !label(qname, rel - 2).equals(ns)) return null;
        return relativeHead(qname, rel - 2);
    }

    /**
     * Whether autopath may answer {@code qname} for some client: it is on and the name has the shape of a first
     * search-path expansion, {@code <name>.<ns>.svc.<zone>} (whether it is depends on the asking pod's namespace).
     */
    public boolean mayAutopath(Name qname) {
        if (!settings.autopath() || !qname.subdomain(settings.clusterDomain())) return false;
        int rel = qname.labels() - zoneLabels;
        return rel >= 3 && label(qname, rel - 1).equals("svc");
    }

    /** The search-path candidates after the first expansion, in the order a resolver would try them. */
    public List<Name> autopathCandidates(Name name) {
        Name svc = concat(name, Names.absolute("svc." + settings.clusterDomain()));
        Name zone = concat(name, settings.clusterDomain());
        if (svc == null || zone == null) return List.of(name);
        return List.of(svc, zone, name);
    }

    /** Whether the A/AAAA answer for {@code owner} is reordered at answer time: spread, or ordered by locality. */
    public boolean reorders(MeshIndex index, Name owner, int qtype) {
        return spreads(index, owner, qtype) || ((qtype == Type.A || qtype == Type.AAAA)
                && settings.locality().order() != MeshSettings.Locality.Order.NONE && index.localities().containsKey(owner));
    }

    /** Whether the A/AAAA answer for {@code owner} merges clusters and should be spread at answer time. */
    public boolean spreads(MeshIndex index, Name owner, int qtype) {
        return settings.spread() != MeshSettings.Spread.NONE && (qtype == Type.A || qtype == Type.AAAA)
                && index.spreadNames().contains(owner);
    }

    private boolean placeholderOn() {
        MeshSettings.Placeholder p = settings.placeholder();
        return p.enabled() && (p.ipv4() != null || p.service() != null);
    }

    /**
     * The placeholder's addresses: the placeholder Service's ClusterIPs as the catalog has them now (A and AAAA), else
     * the fixed {@code placeholder.ipv4}. Null when neither exists (a Service without ClusterIPs and no fixed address):
     * the name then stays NXDOMAIN.
     */
    private Synthesized placeholder(MeshIndex index, Name qname, int qtype) {
        List<InetAddress> ips = index.placeholderAddresses();
        if (ips.isEmpty()) {
            if (settings.placeholder().ipv4() == null) return null;
            ips = List.of(settings.placeholder().ipv4());
        }
        return addressAnswer(qname, qtype, ips, settings.placeholder().ttl());
    }

    private static Synthesized addressAnswer(Name qname, int qtype, List<InetAddress> ips, long ttl) {
        List<Record> out = new java.util.ArrayList<>();
        for (InetAddress ip : ips) {
            boolean matches = qtype == Type.ANY
                    || (qtype == Type.A && ip instanceof Inet4Address)
                    || (qtype == Type.AAAA && ip instanceof Inet6Address);
            if (matches) out.add(MeshZoneCompiler.address(qname, ttl, ip));
        }
        return new Synthesized(out);
    }

    /** Label {@code i} (0 = leftmost) in lower case. */
    private static String label(Name n, int i) {
        return n.getLabelString(i).toLowerCase(Locale.ROOT);
    }

    /** The first {@code count} labels of {@code qname}, as an absolute name. */
    private static Name relativeHead(Name qname, int count) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < count; i++) {
            sb.append(qname.getLabelString(i)).append('.');
        }
        return Names.absolute(sb.toString());
    }

    private static Name concat(Name prefixAbsolute, Name suffix) {
        try {
            return Name.concatenate(prefixAbsolute.relativize(Name.root), suffix);
        } catch (org.xbill.DNS.NameTooLongException e) {
            return null;
        }
    }
}
