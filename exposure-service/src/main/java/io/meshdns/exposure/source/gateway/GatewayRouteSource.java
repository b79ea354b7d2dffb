package io.meshdns.exposure.source.gateway;

import static io.meshdns.exposure.source.Fields.list;
import static io.meshdns.exposure.source.Fields.map;
import static io.meshdns.exposure.source.Fields.str;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.meshdns.exposure.source.Annotations;
import io.meshdns.exposure.source.Problem;
import io.meshdns.exposure.source.ServiceSource;
import io.meshdns.exposure.source.AbstractSource;
import io.meshdns.exposure.source.SourceContext;
import io.meshdns.exposure.source.SourceNames;
import io.meshdns.exposure.source.SourceOutput;
import io.meshdns.exposure.source.WatchedKind;
import io.meshdns.exposure.endpoint.Endpoint;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * A Gateway API route kind → endpoints, with ExternalDNS v0.22's semantics (source/gateway.go):
 * <ul>
 *   <li>hostnames: {@code spec.hostnames} plus the hostname annotation ({@code gateway-hostname-source:
 *       annotation-only | defined-hosts-only} picks one); a route without spec.hostnames takes the listener's;
 *       TCP/UDP routes have none, so they need the annotation;</li>
 *   <li>parents: only {@code status.parents} entries that are also in {@code spec.parentRefs}, are Gateways
 *       ({@code gateway.networking.k8s.io}) — or, with {@code meshdns.exposure.gateway.listener-sets}, ListenerSets
 *       followed to their Gateway ({@link ListenerParents}) —, pass {@code meshdns.exposure.gateway.*}, and are
 *       Accepted=True for the route's current {@code metadata.generation};</li>
 *   <li>listeners: the parentRef's sectionName (else all), same protocol (HTTPS = HTTP, a TLS listener takes TCP
 *       routes), the parentRef's port if set, allowedRoutes namespaces (Same by default, All, Selector on the
 *       route's Namespace labels) and kinds;</li>
 *   <li>host: the most specific overlap of route and listener hostname ({@code *.} a suffix match);</li>
 *   <li>targets: the Gateway's target annotation, else every {@code status.addresses[].value} (a host name →
 *       CNAME), de-duplicated.</li>
 * </ul>
 * Bad input is a Problem on the route: never accepted (records withdrawn), a hostname outside every listener,
 * a Gateway without an address (records kept).
 * <p>
 * One class serves every {@link RouteKind}. It is not abstract so that tests and tools build any kind without CDI;
 * each kind's CDI bean (what {@code @All} collects) is a subclass that only names its kind.
 */
public class GatewayRouteSource extends AbstractSource {

    public static final String GROUP = "gateway.networking.k8s.io";
    public static final WatchedKind GATEWAYS = WatchedKind.custom(GROUP, "v1", "Gateway", "gateways");
    public static final WatchedKind NAMESPACES = WatchedKind.builtIn(Namespace.class, "", "v1", "Namespace", "namespaces", false);
    static final String HOSTNAME_SOURCE = "gateway-hostname-source";

    private final String protocol;
    private final GatewayFilter filter;

    public GatewayRouteSource(RouteKind route, GatewayFilter filter) {
        super(route.sourceName, route.kind, filter.listenerSets()
                ? List.of(GATEWAYS, NAMESPACES, ListenerParents.LISTENER_SETS, ListenerParents.X_LISTENER_SETS)
                : List.of(GATEWAYS, NAMESPACES));
        this.protocol = route.listenerProtocol;
        this.filter = filter;
    }

    /** The bean's constructor: fails naming the key on a {@code meshdns.exposure.gateway.*} value it cannot read. */
    protected GatewayRouteSource(RouteKind route, GatewayConfig config) {
        this(route, GatewayFilter.of(config));
    }

    @Override
    public final void translate(HasMetadata object, SourceContext context, SourceOutput out) {
        var route = (GenericKubernetesResource) object;
        var meta = route.getMetadata();
        Map<String, String> ann = meta.getAnnotations() == null ? Map.of() : meta.getAnnotations();
        if (Annotations.forOtherController(ann)) return;
        String k = kind().kind();
        Map<String, Object> spec = map(route.getAdditionalProperties().get("spec"));
        List<Object> parentRefs = list(spec.get("parentRefs"));
        if (parentRefs.isEmpty()) return;

        List<String> specHosts = new ArrayList<>();
        for (Object h : list(spec.get("hostnames"))) specHosts.add(String.valueOf(h));
        String hostSource = Annotations.get(ann, HOSTNAME_SOURCE).orElse("").trim();
        var routeHosts = new ArrayList<String>();
        if (!hostSource.equalsIgnoreCase("annotation-only")) routeHosts.addAll(specHosts);
        if (!hostSource.equalsIgnoreCase("defined-hosts-only")) routeHosts.addAll(Annotations.list(ann, Annotations.HOSTNAME));
        if (specHosts.isEmpty() || hostSource.equalsIgnoreCase("annotation-only") && routeHosts.isEmpty()) routeHosts.add("");

        Map<String, LinkedHashSet<String>> hostTargets = new LinkedHashMap<>();
        Set<String> unmatchedHosts = new TreeSet<>();
        var notAttached = new TreeSet<String>();
        boolean accepted = false;
        for (Object s : list(map(route.getAdditionalProperties().get("status")).get("parents"))) {
            Map<String, Object> parentStatus = map(s);
            Map<String, Object> ref = map(parentStatus.get("parentRef"));
            String namespace = str(ref.get("namespace"), meta.getNamespace());
            if (!hasParentRef(parentRefs, ref, meta.getNamespace())) continue;
            var resolved = ListenerParents.resolve(str(ref.get("group"), GROUP), str(ref.get("kind"), "Gateway"), namespace,
                    str(ref.get("name"), ""), filter, context, out);
            if (resolved.parent() == null) {
                if (resolved.reason() != null) notAttached.add(resolved.reason());
                continue;
            }
            if (!isAccepted(parentStatus, meta.getGeneration())) continue;
            accepted = true;
            ListenerParents.Parent parent = resolved.parent();
            String section = str(ref.get("sectionName"), "");
            Object port = ref.get("port");
            for (Map<String, Object> lis : parent.listeners()) {
                if (!section.isEmpty() && !section.equals(lis.get("name"))) continue;
                if (!protocolMatches(protocol, str(lis.get("protocol"), ""))) continue;
                if (port != null && !String.valueOf(port).equals(String.valueOf(lis.get("port")))) continue;
                if (!routeAllowed(parent.ownerNamespace(), lis, route, context)) continue;
                String gwHost = str(lis.get("hostname"), "");
                for (String rtHost : routeHosts) {
                    if (gwHost.isEmpty() && rtHost.isEmpty()) continue;
                    String host = matchingHost(gwHost, rtHost);
                    if (host == null) {
                        unmatchedHosts.add(rtHost);
                        continue;
                    }
                    hostTargets.computeIfAbsent(host, x -> new LinkedHashSet<>()).addAll(parent.targets());
                }
            }
        }
        if (!accepted) {
            out.problem(route, k, Problem.ROUTE_NOT_ACCEPTED, "no Gateway has accepted generation " + meta.getGeneration()
                    + " of this " + k + " (status.parents Accepted=True with that observedGeneration)"
                    + (notAttached.isEmpty() ? "" : "; not attached: " + String.join("; ", notAttached)) + "; nothing published");
            return;
        }
        unmatchedHosts.removeAll(hostTargets.keySet());
        unmatchedHosts.remove("");
        if (!unmatchedHosts.isEmpty()) {
            out.problem(route, k, Problem.HOSTNAME_OUTSIDE_LISTENER, "hostname(s) " + unmatchedHosts
                    + " match no listener hostname of an accepting Gateway; not published");
        }
        long ttl = ServiceSource.ttlOf(route, k, ann, out);
        String resource = SourceNames.resourceKey(k, meta.getNamespace(), meta.getName());
        int first = out.endpoints().size();
        for (var e : hostTargets.entrySet()) {
            if (e.getValue().isEmpty()) {
                out.problem(route, k, Problem.GATEWAY_WITHOUT_ADDRESS, "host " + e.getKey()
                        + ": the accepting Gateway has neither a target annotation nor status.addresses");
                continue;
            }
            try {
                out.addTargets(Endpoint.normalizeHostName(e.getKey()), List.copyOf(new TreeSet<>(e.getValue())), ttl, resource);
            } catch (IllegalArgumentException ex) {
                out.problem(route, k, Problem.INVALID_ANNOTATION, "host '" + e.getKey() + "': " + ex.getMessage());
            }
        }
        out.finishObject(first, ann, ttl);
    }

    private static boolean hasParentRef(List<Object> parentRefs, Map<String, Object> ref, String routeNamespace) {
        for (Object o : parentRefs) {
            Map<String, Object> r = map(o);
            if (str(r.get("group"), GROUP).equals(str(ref.get("group"), GROUP)) && str(r.get("kind"), "Gateway").equals(str(ref.get("kind"), "Gateway"))
                    && str(r.get("name"), "").equals(str(ref.get("name"), ""))
                    && str(r.get("namespace"), routeNamespace).equals(str(ref.get("namespace"), routeNamespace))) {
                return true;
            }
        }
        return false;
    }

    /** The first Accepted condition decides: True and observed at the route's current generation. */
    static boolean isAccepted(Map<String, Object> parentStatus, Long generation) {
        for (Object c : list(parentStatus.get("conditions"))) {
            Map<String, Object> cond = map(c);
            if ("Accepted".equals(cond.get("type"))) {
                long observed = cond.get("observedGeneration") instanceof Number n ? n.longValue() : 0;
                return "True".equals(cond.get("status")) && observed == (generation == null ? 0 : generation);
            }
        }
        return false;
    }

    /** HTTPS counts as HTTP; a TLS listener takes TCP routes. */
    static boolean protocolMatches(String route, String listener) {
        String a = route.equals("HTTPS") ? "HTTP" : route;
        String b = listener.equals("HTTPS") ? "HTTP" : listener;
        if (a.equals("TCP") && b.equals("TLS")) b = "TCP";
        return a.equals(b);
    }

    /** The listener's allowedRoutes: {@code Same} is the namespace of the object that holds the listener (Gateway or ListenerSet). */
    private boolean routeAllowed(String ownerNamespace, Map<String, Object> listener, HasMetadata route, SourceContext context) {
        Map<String, Object> allow = map(listener.get("allowedRoutes"));
        Map<String, Object> namespaces = map(allow.get("namespaces"));
        String from = str(namespaces.get("from"), "Same");
        switch (from) {
            case "All" -> { }
            case "Same" -> {
                if (!Objects.equals(ownerNamespace, route.getMetadata().getNamespace())) return false;
            }
            case "Selector" -> {
                HasMetadata ns = null;
                for (HasMetadata n : context.objects(NAMESPACES)) if (n.getMetadata().getName().equals(route.getMetadata().getNamespace())) ns = n;
                if (ns == null || !selectorMatches(map(namespaces.get("selector")), ns.getMetadata().getLabels())) return false;
            }
            default -> {
                return false;
            }
        }
        List<Object> kinds = list(allow.get("kinds"));
        if (kinds.isEmpty()) return true;
        for (Object o : kinds) {
            Map<String, Object> gk = map(o);
            if (str(gk.get("group"), GROUP).equals(GROUP) && kind().kind().equals(gk.get("kind"))) return true;
        }
        return false;
    }

    /** A metav1.LabelSelector: matchLabels and matchExpressions (In, NotIn, Exists, DoesNotExist). */
    static boolean selectorMatches(Map<String, Object> selector, Map<String, String> labels) {
        Map<String, String> l = labels == null ? Map.of() : labels;
        for (var e : map(selector.get("matchLabels")).entrySet()) if (!String.valueOf(e.getValue()).equals(l.get(e.getKey()))) return false;
        for (Object o : list(selector.get("matchExpressions"))) {
            Map<String, Object> expr = map(o);
            String key = str(expr.get("key"), "");
            var values = list(expr.get("values")).stream().map(String::valueOf).toList();
            boolean ok = switch (str(expr.get("operator"), "")) {
                case "In" -> l.containsKey(key) && values.contains(l.get(key));
                case "NotIn" -> !l.containsKey(key) || !values.contains(l.get(key));
                case "Exists" -> l.containsKey(key);
                case "DoesNotExist" -> !l.containsKey(key);
                default -> false;
            };
            if (!ok) return false;
        }
        return true;
    }

    /**
     * The most specific overlap of two hostnames, null when none: "" matches anything, {@code *.x} matches any name
     * below x (not x itself); an IP or an invalid name matches nothing.
     */
    static String matchingHost(String a, String b) {
        a = host(a);
        b = host(b);
        if (a == null || b == null) return null;
        if (a.isEmpty()) return b;
        if (b.isEmpty() || a.equals(b)) return a;
        if (b.length() < a.length() || (a.length() == b.length() && b.startsWith("*."))) {
            String t = a;
            a = b;
            b = t;
        }
        return a.startsWith("*.") && b.endsWith(a.substring(1)) ? b : null;
    }

    private static String host(String h) {
        if (h.isEmpty()) return "";
        if (Endpoint.isIpLiteral(h)) return null;
        String bare = h.startsWith("*.") ? h.substring(2) : h;
        if (bare.isEmpty() || bare.length() > 255) return null;
        for (String label : bare.split("\\.", -1)) {
            if (!label.matches("[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?")) return null;
        }
        return h.toLowerCase(Locale.ROOT);
    }
}
