package io.meshdns.exposure.source.gateway;

import static io.meshdns.exposure.source.Fields.list;
import static io.meshdns.exposure.source.Fields.map;
import static io.meshdns.exposure.source.Fields.str;
import static io.meshdns.exposure.source.Fields.top;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.meshdns.exposure.source.Annotations;
import io.meshdns.exposure.source.Problem;
import io.meshdns.exposure.source.SourceContext;
import io.meshdns.exposure.source.SourceOutput;
import io.meshdns.exposure.source.WatchedKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a route's parentRef resolves to, with ExternalDNS's semantics (source/gateway.go, {@code --gateway-listener-sets}):
 * a Gateway, or a ListenerSet ({@code gateway.networking.k8s.io/v1 ListenerSet}, or the experimental
 * {@code gateway.networking.x-k8s.io/v1alpha1 XListenerSet}) followed to its parent Gateway.
 * <ul>
 *   <li>a Gateway: all its listeners, in its namespace, at its target annotation or else its {@code status.addresses};</li>
 *   <li>a ListenerSet is attached when its parent Gateway ({@code spec.parentRef}, the ListenerSet's namespace by default)
 *       exists and passes {@code meshdns.exposure.gateway.*}, the Gateway's {@code spec.allowedListeners.namespaces.from}
 *       admits the ListenerSet's namespace ({@code None} by default, {@code Same}, {@code All}, {@code Selector}) and the
 *       ListenerSet's {@code status.conditions} say Accepted=True; its listeners are the {@code spec.listeners} whose
 *       {@code status.listeners} entry is Accepted=True, their {@code allowedRoutes Same} meaning the ListenerSet's
 *       namespace; targets: the ListenerSet's target annotation, else the Gateway's, else the Gateway's addresses.</li>
 * </ul>
 * A ListenerSet whose annotations do not match {@code meshdns.exposure.annotation-filter} (or whose controller annotation
 * names another controller) is not followed, as ExternalDNS reads ListenerSets through the route sources' annotation filter.
 * A ListenerSet whose parent Gateway does not exist is a Warning on the ListenerSet (once a pass); the routes under it
 * publish nothing through it.
 */
final class ListenerParents {

    static final String X_GROUP = "gateway.networking.x-k8s.io";
    static final WatchedKind LISTENER_SETS = WatchedKind.custom(GatewayRouteSource.GROUP, "v1", "ListenerSet", "listenersets");
    static final WatchedKind X_LISTENER_SETS = WatchedKind.custom(X_GROUP, "v1alpha1", "XListenerSet", "xlistenersets");

    /** Where a route may attach: the Gateway that serves it, its listeners, the namespace "Same" means, the targets. */
    record Parent(HasMetadata gateway, String ownerNamespace, List<Map<String, Object>> listeners, List<String> targets) {
    }

    /** A parent, or why not: {@code reason} is null when the parent is simply not ours to follow (filtered, not found, another kind). */
    record Resolved(Parent parent, String reason) {
        static final Resolved NONE = new Resolved(null, null);
    }

    private ListenerParents() {
    }

    static Resolved resolve(String group, String kind, String namespace, String name, GatewayFilter filter, SourceContext context,
                            SourceOutput out) {
        if (group.equals(GatewayRouteSource.GROUP) && kind.equals("Gateway")) {
            HasMetadata gw = gateways(context).get(namespace + "/" + name);
            if (gw == null || !filter.admits(gw)) return Resolved.NONE;
            return new Resolved(new Parent(gw, namespace, listeners(gw), targets(gw)), null);
        }
        WatchedKind lsKind = group.equals(GatewayRouteSource.GROUP) && kind.equals("ListenerSet") ? LISTENER_SETS
                : group.equals(X_GROUP) && kind.equals("XListenerSet") ? X_LISTENER_SETS : null;
        if (lsKind == null) return Resolved.NONE;
        if (!filter.listenerSets()) {
            return new Resolved(null, kind + " " + namespace + "/" + name + " is followed only with meshdns.exposure.gateway.listener-sets=true");
        }
        var ls = (GenericKubernetesResource) listenerSets(context).get(lsKind.key() + "/" + namespace + "/" + name);
        if (ls == null || !context.annotationsMatch(ls)
                || Annotations.forOtherController(ls.getMetadata().getAnnotations() == null ? Map.of() : ls.getMetadata().getAnnotations())) {
            return Resolved.NONE;
        }
        String what = lsKind.kind() + " " + namespace + "/" + name;
        Map<String, Object> parentRef = map(top(ls, "spec").get("parentRef"));
        String gwNamespace = str(parentRef.get("namespace"), namespace);
        String gwName = str(parentRef.get("name"), "");
        boolean gatewayKind = str(parentRef.get("group"), GatewayRouteSource.GROUP).equals(GatewayRouteSource.GROUP)
                && str(parentRef.get("kind"), "Gateway").equals("Gateway");
        HasMetadata gw = gatewayKind ? gateways(context).get(gwNamespace + "/" + gwName) : null;
        if (gw == null) {
            String reason = what + ": its parent Gateway " + gwNamespace + "/" + gwName + " does not exist";
            if (context.<Set<String>>index("gateway/listenerset-problems", c -> new HashSet<>()).add(lsKind.key() + "/" + namespace + "/" + name)) {
                out.problem(ls, lsKind.kind(), Problem.LISTENER_SET_WITHOUT_GATEWAY, reason + "; no route publishes through it");
            }
            return new Resolved(null, reason);
        }
        if (!filter.admits(gw)) return Resolved.NONE;
        if (!allowsListenerSet(gw, namespace, context)) {
            return new Resolved(null, "parent Gateway " + gwNamespace + "/" + gwName + " does not allow ListenerSets from namespace " + namespace);
        }
        if (!conditionTrue(map(ls.getAdditionalProperties().get("status")).get("conditions"), "Accepted")) {
            return new Resolved(null, what + " has not been accepted");
        }
        var accepted = new HashMap<String, Boolean>();
        for (Object s : list(map(ls.getAdditionalProperties().get("status")).get("listeners"))) {
            accepted.put(str(map(s).get("name"), ""), conditionTrue(map(s).get("conditions"), "Accepted"));
        }
        var listeners = new ArrayList<Map<String, Object>>();
        for (Object l : list(top(ls, "spec").get("listeners"))) {
            if (accepted.getOrDefault(str(map(l).get("name"), ""), false)) listeners.add(map(l));
        }
        List<String> override = Annotations.list(ls.getMetadata().getAnnotations() == null ? Map.of() : ls.getMetadata().getAnnotations(),
                Annotations.TARGET);
        return new Resolved(new Parent(gw, namespace, listeners, override.isEmpty() ? targets(gw) : override), null);
    }

    /** The Gateway's spec.allowedListeners.namespaces: None (the default), Same, All, or Selector on the Namespace's labels. */
    private static boolean allowsListenerSet(HasMetadata gw, String lsNamespace, SourceContext context) {
        Map<String, Object> namespaces = map(map(top((GenericKubernetesResource) gw, "spec").get("allowedListeners")).get("namespaces"));
        return switch (str(namespaces.get("from"), "None")) {
            case "All" -> true;
            case "Same" -> gw.getMetadata().getNamespace().equals(lsNamespace);
            case "Selector" -> {
                HasMetadata ns = null;
                for (HasMetadata n : context.objects(GatewayRouteSource.NAMESPACES)) if (n.getMetadata().getName().equals(lsNamespace)) ns = n;
                yield ns != null && namespaces.get("selector") != null
                        && GatewayRouteSource.selectorMatches(map(namespaces.get("selector")), ns.getMetadata().getLabels());
            }
            default -> false;
        };
    }

    /** The first condition of this type decides. */
    static boolean conditionTrue(Object conditions, String type) {
        for (Object c : list(conditions)) {
            if (type.equals(map(c).get("type"))) return "True".equals(map(c).get("status"));
        }
        return false;
    }

    private static List<Map<String, Object>> listeners(HasMetadata gw) {
        var out = new ArrayList<Map<String, Object>>();
        for (Object l : list(top((GenericKubernetesResource) gw, "spec").get("listeners"))) out.add(map(l));
        return out;
    }

    /** The Gateway's target annotation, else every status.addresses[].value. */
    static List<String> targets(HasMetadata gw) {
        List<String> override = Annotations.list(gw.getMetadata().getAnnotations() == null ? Map.of() : gw.getMetadata().getAnnotations(),
                Annotations.TARGET);
        if (!override.isEmpty()) return override;
        var out = new ArrayList<String>();
        for (Object a : list(top((GenericKubernetesResource) gw, "status").get("addresses"))) {
            Object v = map(a).get("value");
            if (v != null && !v.toString().isBlank()) out.add(v.toString());
        }
        return out;
    }

    private static Map<String, HasMetadata> gateways(SourceContext context) {
        return context.index("gateway/by-name", c -> {
            var out = new HashMap<String, HasMetadata>();
            for (HasMetadata g : c.objects(GatewayRouteSource.GATEWAYS)) out.put(g.getMetadata().getNamespace() + "/" + g.getMetadata().getName(), g);
            return out;
        });
    }

    private static Map<String, HasMetadata> listenerSets(SourceContext context) {
        return context.index("gateway/listenersets", c -> {
            var out = new HashMap<String, HasMetadata>();
            for (WatchedKind k : List.of(LISTENER_SETS, X_LISTENER_SETS)) {
                for (HasMetadata ls : c.objects(k)) out.put(k.key() + "/" + ls.getMetadata().getNamespace() + "/" + ls.getMetadata().getName(), ls);
            }
            return out;
        });
    }
}
