package io.meshdns.exposure.source.istio;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.meshdns.exposure.source.Annotations;
import io.meshdns.exposure.source.Fields;
import io.meshdns.exposure.source.IngressSource;
import io.meshdns.exposure.source.ServiceSource;
import io.meshdns.exposure.source.SourceContext;
import io.meshdns.exposure.source.SourceOutput;
import io.meshdns.exposure.source.SourceObject;
import io.meshdns.exposure.source.WatchedKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What both Istio sources read from an Istio Gateway (networking.istio.io), with ExternalDNS v0.22's semantics
 * (source/istio_gateway.go, istio_virtualservice.go): its hosts, the targets of the ingress gateway it selects, and
 * whether a VirtualService host binds to it.
 */
final class IstioGateways {

    static final String GROUP = "networking.istio.io";
    static final WatchedKind GATEWAYS = WatchedKind.custom(GROUP, "v1", "Gateway", "gateways");
    /** ExternalDNS's annotation naming an Ingress ({@code name} or {@code namespace/name}) whose addresses the Gateway has. */
    static final String INGRESS = "ingress";
    /** The reserved gateway name meaning "every sidecar in the mesh": nothing to publish. */
    static final String MESH = "mesh";

    private IstioGateways() {
    }

    /** The targets cannot be known this pass (a bad or dangling ingress annotation): a Problem on the object. */
    static final class NoTargets extends Exception {
        NoTargets(String message) {
            super(message);
        }
    }

    /**
     * spec.servers[].hosts without their {@code namespace/} part, {@code *} dropped, plus the hostname annotation
     * (names as written: the caller validates them).
     */
    static List<String> hosts(GenericKubernetesResource gateway, Map<String, String> annotations) {
        var out = new ArrayList<String>();
        for (Object server : Fields.list(Fields.top(gateway, "spec").get("servers"))) {
            for (String host : Fields.strings(Fields.map(server).get("hosts"))) {
                if (host.isEmpty()) continue;
                String[] parts = host.split("/", -1);
                if (parts.length == 2) host = parts[1];
                if (!host.equals("*")) out.add(host);
            }
        }
        out.addAll(Annotations.list(annotations, Annotations.HOSTNAME));
        return out;
    }

    /**
     * The Gateway's target annotation; else the addresses of the Ingress its ingress annotation names; else every
     * Service whose spec.selector holds the Gateway's spec.selector: its spec.externalIPs if any, else its
     * status.loadBalancer.ingress (IP, else host name). Services and Ingresses are looked up in any namespace, or only in
     * meshdns.exposure.namespace when it is set (as ExternalDNS's informers for them are).
     */
    static List<String> targets(GenericKubernetesResource gateway, SourceContext context, SourceOutput out) throws NoTargets {
        SourceObject gw = SourceObject.of(gateway, "Gateway");
        if (!Annotations.list(gw.annotations(), Annotations.TARGET).isEmpty()) return gw.targetAnnotation(out);
        String ingress = Annotations.get(gw.annotations(), INGRESS).orElse("").trim();
        if (!ingress.isEmpty()) {
            String[] ref = namespacedName(ingress, gw.namespace());
            if (ref == null) throw new NoTargets("Gateway " + gw.namespace() + "/" + gw.name() + ": ingress annotation '" + ingress
                    + "' is neither name nor namespace/name");
            Ingress ing = context.<Map<String, Ingress>>index("istio/ingresses", IstioGateways::ingressesByName).get(ref[0] + "/" + ref[1]);
            if (ing != null && !context.inNamespace(ing)) ing = null; // ExternalDNS reads Ingresses through --namespace too
            if (ing == null) throw new NoTargets("Gateway " + gw.namespace() + "/" + gw.name() + ": its ingress annotation names Ingress "
                    + ref[0] + "/" + ref[1] + ", which does not exist");
            return IngressSource.loadBalancerTargets(ing);
        }
        Map<String, String> selector = Fields.stringMap(Fields.top(gateway, "spec").get("selector"));
        var targets = new ArrayList<String>();
        for (Service svc : context.<Service>objects(ServiceSource.SERVICES)) {
            if (!context.inNamespace(svc)) continue;
            Map<String, String> svcSelector = svc.getSpec() == null || svc.getSpec().getSelector() == null ? Map.of() : svc.getSpec().getSelector();
            if (!selector.entrySet().stream().allMatch(e -> Objects.equals(svcSelector.get(e.getKey()), e.getValue()))) continue;
            if (svc.getSpec() != null && svc.getSpec().getExternalIPs() != null && !svc.getSpec().getExternalIPs().isEmpty()) {
                targets.addAll(svc.getSpec().getExternalIPs());
                continue;
            }
            if (svc.getStatus() == null || svc.getStatus().getLoadBalancer() == null || svc.getStatus().getLoadBalancer().getIngress() == null) continue;
            for (LoadBalancerIngress lb : svc.getStatus().getLoadBalancer().getIngress()) {
                if (lb.getIp() != null && !lb.getIp().isEmpty()) targets.add(lb.getIp());
                else if (lb.getHostname() != null && !lb.getHostname().isEmpty()) targets.add(lb.getHostname());
            }
        }
        return targets;
    }

    /**
     * Whether a VirtualService host binds to this Gateway (Istio's Server rules): the VirtualService is exported to the
     * Gateway's namespace (exportTo absent, {@code *}, that namespace, or {@code .} in the same namespace), and a server
     * host whose namespace part admits the VirtualService's namespace is {@code *}, the host itself, or a {@code *.suffix}
     * the host ends with.
     */
    static boolean binds(HasMetadata virtualService, List<String> exportTo, GenericKubernetesResource gateway, String vsHost) {
        String vsNs = virtualService.getMetadata().getNamespace();
        String gwNs = gateway.getMetadata().getNamespace();
        if (!exportTo.isEmpty() && exportTo.stream().noneMatch(ns -> ns.equals("*") || ns.equals(gwNs) || ns.equals(".") && gwNs.equals(vsNs))) {
            return false;
        }
        for (Object server : Fields.list(Fields.top(gateway, "spec").get("servers"))) {
            for (String raw : Fields.strings(Fields.map(server).get("hosts"))) {
                String namespace = "*";
                String host = raw;
                String[] parts = raw.split("/", -1);
                if (parts.length == 2) {
                    namespace = parts[0];
                    host = parts[1];
                } else if (parts.length != 1) {
                    continue;
                }
                if (!(namespace.equals("*") || namespace.equals(vsNs) || namespace.equals(".") && vsNs.equals(gwNs))) continue;
                if (host.equals("*") || host.equals(vsHost) || host.startsWith("*.") && vsHost.endsWith(host.substring(1))) return true;
            }
        }
        return false;
    }

    /** {@code name} or {@code namespace/name} → {namespace, name}; null for anything else. */
    static String[] namespacedName(String ref, String defaultNamespace) {
        String[] parts = ref.split("/", -1);
        if (parts.length == 1) return new String[] {defaultNamespace, parts[0]};
        if (parts.length == 2) return new String[] {parts[0].isEmpty() ? defaultNamespace : parts[0], parts[1]};
        return null;
    }

    static Map<String, GenericKubernetesResource> gatewaysByName(SourceContext context) {
        var out = new HashMap<String, GenericKubernetesResource>();
        for (HasMetadata g : context.objects(GATEWAYS)) out.put(g.getMetadata().getNamespace() + "/" + g.getMetadata().getName(), (GenericKubernetesResource) g);
        return out;
    }

    private static Map<String, Ingress> ingressesByName(SourceContext context) {
        var out = new HashMap<String, Ingress>();
        for (Ingress i : context.<Ingress>objects(IngressSource.INGRESSES)) out.put(i.getMetadata().getNamespace() + "/" + i.getMetadata().getName(), i);
        return out;
    }
}
