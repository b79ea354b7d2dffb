package io.meshdns.exposure.source.istio;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.source.AbstractSource;
import io.meshdns.exposure.source.Annotations;
import io.meshdns.exposure.source.Fields;
import io.meshdns.exposure.source.Problem;
import io.meshdns.exposure.source.SourceContext;
import io.meshdns.exposure.source.SourceObject;
import io.meshdns.exposure.source.SourceOutput;
import io.meshdns.exposure.source.WatchedKind;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * {@code istio-serviceentry} (no ExternalDNS counterpart): a ServiceEntry's spec.hosts, plus the hostname annotation, at
 * the first of these that has an address for the host:
 * <ol>
 *   <li>{@code status.addresses} (the VIPs Istio allocated; an entry naming another host is not this host's);</li>
 *   <li>{@code spec.addresses} (single addresses; a CIDR wider than one address is no target);</li>
 *   <li>for {@code resolution: STATIC}, the IP {@code address} of each {@code spec.endpoints} entry.</li>
 * </ol>
 * The {@code …/target} annotation replaces all three. Published only for an entry exported everywhere ({@code exportTo}
 * absent or holding {@code *}: a public name cannot be kept to a namespace); a {@code location: MESH_INTERNAL} entry
 * (a mesh workload's own name) only with {@code meshdns.io/publish-mesh-internal: "true"}.
 * <p>
 * Not published, each a Warning on the ServiceEntry while its other hosts still are: a host in the cluster's own zone
 * ({@code cluster.local}: the nodes answer it, it has no place in a public zone), a wildcard host without a target (a
 * wildcard record at nothing would shadow the whole subtree). Registry resource key {@code serviceentry/<ns>/<name>}.
 */
@Singleton
public final class IstioServiceEntrySource extends AbstractSource {

    static final WatchedKind SERVICE_ENTRIES = WatchedKind.custom(IstioGateways.GROUP, "v1", "ServiceEntry", "serviceentries");
    /** Publishes a MESH_INTERNAL ServiceEntry (its names are otherwise the mesh's own business). */
    public static final String PUBLISH_MESH_INTERNAL = "meshdns.io/publish-mesh-internal";
    /** The cluster's own zone (and the {@code svc} shorthand below it). */
    static final String CLUSTER_ZONE = "cluster.local";

    public IstioServiceEntrySource() {
        super("istio-serviceentry", SERVICE_ENTRIES);
    }

    @Override
    public void translate(HasMetadata object, SourceContext context, SourceOutput out) {
        var se = (GenericKubernetesResource) object;
        SourceObject obj = SourceObject.open(se, "ServiceEntry").orElse(null);
        if (obj == null) return;
        Map<String, Object> spec = Fields.top(se, "spec");
        List<String> exportTo = Fields.strings(spec.get("exportTo"));
        if (!exportTo.isEmpty() && !exportTo.contains("*")) return;
        boolean meshInternal = "MESH_INTERNAL".equals(Fields.str(spec.get("location"), "MESH_EXTERNAL"));
        if (meshInternal && !"true".equalsIgnoreCase(obj.annotations().getOrDefault(PUBLISH_MESH_INTERNAL, "").trim())) return;

        var hosts = new LinkedHashSet<String>();
        for (String h : Fields.strings(spec.get("hosts"))) if (!h.isBlank()) hosts.add(h.trim());
        hosts.addAll(obj.hostnameAnnotation());
        if (hosts.isEmpty()) return;
        long ttl = obj.ttl(out);
        boolean annotated = !Annotations.list(obj.annotations(), Annotations.TARGET).isEmpty();
        List<String> override = annotated ? obj.targetAnnotation(out) : List.of();
        var inClusterZone = new TreeSet<String>();
        var wildcardsWithout = new TreeSet<String>();
        int first = out.endpoints().size();
        for (String host : hosts) {
            String h = Endpoint.normalizeName(host);
            if (h.equals(CLUSTER_ZONE) || h.endsWith("." + CLUSTER_ZONE) || h.endsWith(".svc")) {
                inClusterZone.add(host);
                continue;
            }
            List<String> targets = annotated ? override : targets(se, spec, h);
            if (targets.isEmpty()) {
                if (h.startsWith("*")) wildcardsWithout.add(host);
                continue;
            }
            obj.publish(out, host, targets, ttl);
        }
        if (!inClusterZone.isEmpty()) {
            obj.problem(out, Problem.HOST_IN_CLUSTER_ZONE, "host(s) " + inClusterZone + " are in the cluster's own zone " + CLUSTER_ZONE
                    + ": not published (the other hosts are)");
        }
        if (!wildcardsWithout.isEmpty()) {
            obj.problem(out, Problem.WILDCARD_WITHOUT_TARGET, "wildcard host(s) " + wildcardsWithout
                    + " have no address (status.addresses, spec.addresses, STATIC endpoints or the target annotation): not published");
        }
        out.finishObject(first, obj.annotations(), ttl);
    }

    /** The first non-empty of status.addresses (for this host), spec.addresses, STATIC endpoint addresses. */
    private static List<String> targets(GenericKubernetesResource se, Map<String, Object> spec, String host) {
        var allocated = new ArrayList<String>();
        for (Object a : Fields.list(Fields.top(se, "status").get("addresses"))) {
            Map<String, Object> addr = Fields.map(a);
            String forHost = Endpoint.normalizeName(Fields.str(addr.get("host"), host));
            String value = single(Fields.str(addr.get("value"), ""));
            if (forHost.equals(host) && value != null) allocated.add(value);
        }
        if (!allocated.isEmpty()) return allocated;
        var declared = new ArrayList<String>();
        for (String a : Fields.strings(spec.get("addresses"))) {
            String value = single(a);
            if (value != null) declared.add(value);
        }
        if (!declared.isEmpty()) return declared;
        var endpoints = new ArrayList<String>();
        if ("STATIC".equals(Fields.str(spec.get("resolution"), "NONE"))) {
            for (Object e : Fields.list(spec.get("endpoints"))) {
                String value = single(Fields.str(Fields.map(e).get("address"), ""));
                if (value != null) endpoints.add(value);
            }
        }
        return endpoints;
    }

    /** An IP literal, or a CIDR of one address, as its address; null for anything else (a range, a socket, a name). */
    static String single(String raw) {
        String v = raw.trim().toLowerCase(Locale.ROOT);
        int slash = v.indexOf('/');
        if (slash >= 0) {
            String bits = v.substring(slash + 1);
            v = v.substring(0, slash);
            if (!bits.equals(v.contains(":") ? "128" : "32")) return null;
        }
        if (!Endpoint.isIpLiteral(v)) return null;
        try {
            return Endpoint.normalizeTarget(v.contains(":") ? "AAAA" : "A", v);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
