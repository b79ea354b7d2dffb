package io.meshdns.exposure.source;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.IngressLoadBalancerIngress;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * Ingress → endpoints, as ExternalDNS's ingress source: the hosts of spec.rules and spec.tls plus
 * the hostname annotation, pointing at status.loadBalancer.ingress (IP → A/AAAA, host → CNAME) or
 * at the target annotation. Rule hosts are declared names, so an Ingress needs no annotation; one without any names
 * takes meshdns.exposure.fqdn-template's ({@link FqdnTemplate}).
 */
@Singleton
public final class IngressSource extends AbstractSource {

    public static final WatchedKind INGRESSES = WatchedKind.builtIn(Ingress.class, "networking.k8s.io", "v1", "Ingress", "ingresses", true);

    public IngressSource() {
        super("ingress", INGRESSES);
    }

    @Override
    public void translate(HasMetadata object, SourceContext context, SourceOutput out) {
        translate((Ingress) object, context, out);
    }

    /** Without a pass: no fqdn-template. */
    public void translate(Ingress ing, SourceOutput out) {
        translate(ing, new SourceContext(new SourceSettings(java.util.Optional.empty(), false, java.util.Optional.empty()), Map.of()), out);
    }

    public void translate(Ingress ing, SourceContext context, SourceOutput out) {
        SourceObject obj = SourceObject.open(ing, "Ingress").orElse(null);
        if (obj == null) return;
        Map<String, String> ann = obj.annotations();
        int first = out.endpoints().size();
        // ingress-hostname-source: defined-hosts-only (rules and TLS hosts) or annotation-only (the hostname annotation)
        String hostSource = Annotations.get(ann, Annotations.INGRESS_HOSTNAME_SOURCE).orElse("").trim();
        var hosts = new LinkedHashSet<String>();
        if (ing.getSpec() != null && !hostSource.equalsIgnoreCase("annotation-only")) {
            if (ing.getSpec().getRules() != null) {
                ing.getSpec().getRules().forEach(r -> {
                    if (r.getHost() != null && !r.getHost().isBlank()) hosts.add(r.getHost());
                });
            }
            if (ing.getSpec().getTls() != null) {
                ing.getSpec().getTls().forEach(t -> {
                    if (t.getHosts() != null) hosts.addAll(t.getHosts());
                });
            }
        }
        if (!hostSource.equalsIgnoreCase("defined-hosts-only")) hosts.addAll(obj.hostnameAnnotation());
        List<String> names = obj.templateNames(context, out, hosts);
        if (names.isEmpty()) return;
        long ttl = obj.ttl(out);
        List<String> targets = Annotations.list(ann, Annotations.TARGET).isEmpty() ? loadBalancerTargets(ing) : obj.targetAnnotation(out);
        for (String h : names) obj.publish(out, h, targets, ttl);
        out.finishObject(first, ann, ttl);
    }

    /** status.loadBalancer.ingress: each entry's IP, else its host name (ExternalDNS's order). */
    public static List<String> loadBalancerTargets(Ingress ing) {
        var targets = new ArrayList<String>();
        if (ing.getStatus() != null && ing.getStatus().getLoadBalancer() != null && ing.getStatus().getLoadBalancer().getIngress() != null) {
            for (IngressLoadBalancerIngress i : ing.getStatus().getLoadBalancer().getIngress()) {
                if (i.getIp() != null && !i.getIp().isBlank()) targets.add(i.getIp());
                else if (i.getHostname() != null && !i.getHostname().isBlank()) targets.add(i.getHostname());
            }
        }
        return targets;
    }
}
