package io.meshdns.exposure.source.istio;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.meshdns.exposure.source.AbstractSource;
import io.meshdns.exposure.source.Annotations;
import io.meshdns.exposure.source.Fields;
import io.meshdns.exposure.source.IngressSource;
import io.meshdns.exposure.source.Problem;
import io.meshdns.exposure.source.ServiceSource;
import io.meshdns.exposure.source.SourceContext;
import io.meshdns.exposure.source.SourceObject;
import io.meshdns.exposure.source.SourceOutput;
import io.meshdns.exposure.source.WatchedKind;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * ExternalDNS's {@code --source=istio-virtualservice} (v0.22, source/istio_virtualservice.go): each of a VirtualService's
 * spec.hosts ({@code namespace/host} read as host; {@code *} skipped) and hostname-annotation names is published at the
 * VirtualService's target annotation, else at the targets of every Gateway in spec.gateways it binds to
 * ({@link IstioGateways#binds}; {@code mesh} is every sidecar, not a Gateway). A host no Gateway gives a target gets
 * no record. Registry resource key {@code virtualservice/<ns>/<name>}.
 * <p>
 * A gateway reference that is not {@code name} or {@code namespace/name}, or a Gateway whose ingress annotation cannot
 * be followed, is a Problem on the VirtualService that keeps its current records (ExternalDNS fails the pass there);
 * a Gateway that does not exist is a {@link Problem#GATEWAY_NOT_FOUND} warning and gives no targets, as in ExternalDNS.
 */
@Singleton
public final class IstioVirtualServiceSource extends AbstractSource {

    static final WatchedKind VIRTUAL_SERVICES = WatchedKind.custom(IstioGateways.GROUP, "v1", "VirtualService", "virtualservices");

    public IstioVirtualServiceSource() {
        super("istio-virtualservice", VIRTUAL_SERVICES, IstioGateways.GATEWAYS, ServiceSource.SERVICES, IngressSource.INGRESSES);
    }

    @Override
    public void translate(HasMetadata object, SourceContext context, SourceOutput out) {
        var vs = (GenericKubernetesResource) object;
        SourceObject obj = SourceObject.open(vs, "VirtualService").orElse(null);
        if (obj == null) return;
        Map<String, Object> spec = Fields.top(vs, "spec");
        var hosts = new LinkedHashSet<String>();
        for (String host : Fields.strings(spec.get("hosts"))) {
            if (host.isEmpty() || host.equals("*")) continue;
            String[] parts = host.split("/", -1);
            hosts.add(parts.length == 2 ? parts[1] : host);
        }
        hosts.addAll(obj.hostnameAnnotation());
        List<String> named = obj.templateNames(context, out, hosts);
        hosts.clear();
        hosts.addAll(named);
        if (hosts.isEmpty()) return;
        long ttl = obj.ttl(out);
        boolean annotated = !Annotations.list(obj.annotations(), Annotations.TARGET).isEmpty();
        List<String> override = annotated ? obj.targetAnnotation(out) : List.of();
        List<String> exportTo = Fields.strings(spec.get("exportTo"));
        Map<String, GenericKubernetesResource> gateways = context.index("istio/gateways", IstioGateways::gatewaysByName);
        int first = out.endpoints().size();
        try {
            var missing = new LinkedHashSet<String>();
            for (String host : hosts) {
                List<String> targets = annotated ? override : targets(vs, obj, exportTo, Fields.strings(spec.get("gateways")), gateways, host,
                        context, out, missing);
                if (!targets.isEmpty()) obj.publish(out, host, targets, ttl);
            }
            if (!missing.isEmpty()) {
                obj.problem(out, Problem.GATEWAY_NOT_FOUND, "spec.gateways names " + missing + ", which do not exist: no targets from them");
            }
        } catch (IstioGateways.NoTargets e) {
            out.endpoints().subList(first, out.endpoints().size()).clear();
            obj.problem(out, Problem.INVALID_ANNOTATION, e.getMessage() + "; its current records are kept");
            return;
        }
        out.finishObject(first, obj.annotations(), ttl);
    }

    /** The targets of every Gateway this host binds to, each once, in the order met. */
    private static List<String> targets(GenericKubernetesResource vs, SourceObject obj, List<String> exportTo, List<String> refs,
                                        Map<String, GenericKubernetesResource> gateways, String host, SourceContext context,
                                        SourceOutput out, LinkedHashSet<String> missing) throws IstioGateways.NoTargets {
        var targets = new LinkedHashSet<String>();
        for (String ref : refs) {
            if (ref.isEmpty() || ref.equals(IstioGateways.MESH)) continue;
            String[] name = IstioGateways.namespacedName(ref, obj.namespace());
            if (name == null) throw new IstioGateways.NoTargets("spec.gateways entry '" + ref + "' is neither name nor namespace/name");
            GenericKubernetesResource gw = gateways.get(name[0] + "/" + name[1]);
            if (gw == null) {
                missing.add(name[0] + "/" + name[1]);
                continue;
            }
            if (!IstioGateways.binds(vs, exportTo, gw, host)) continue;
            targets.addAll(IstioGateways.targets(gw, context, out));
        }
        return new ArrayList<>(targets);
    }
}
