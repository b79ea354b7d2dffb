package io.meshdns.exposure.source.istio;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.meshdns.exposure.source.AbstractSource;
import io.meshdns.exposure.source.IngressSource;
import io.meshdns.exposure.source.Problem;
import io.meshdns.exposure.source.ServiceSource;
import io.meshdns.exposure.source.SourceContext;
import io.meshdns.exposure.source.SourceObject;
import io.meshdns.exposure.source.SourceOutput;
import io.meshdns.exposure.source.WatchedKind;
import jakarta.inject.Singleton;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * ExternalDNS's {@code --source=istio-gateway} (v0.22, source/istio_gateway.go): an Istio Gateway's
 * spec.servers[].hosts ({@code namespace/host} read as host, {@code *} skipped) plus the hostname annotation (or the
 * fqdn-template's names, {@link io.meshdns.exposure.source.FqdnTemplate}), at the
 * targets of the ingress gateway it selects (see {@link IstioGateways#targets}). Registry resource key
 * {@code gateway/<ns>/<name>}, as ExternalDNS writes it. A Gateway whose ingress annotation cannot be followed is a
 * Problem on it and keeps its current records (ExternalDNS fails the whole pass there).
 */
@Singleton
public final class IstioGatewaySource extends AbstractSource {

    public IstioGatewaySource() {
        super("istio-gateway", IstioGateways.GATEWAYS, ServiceSource.SERVICES, IngressSource.INGRESSES);
    }

    @Override
    public void translate(HasMetadata object, SourceContext context, SourceOutput out) {
        var gateway = (GenericKubernetesResource) object;
        SourceObject obj = SourceObject.open(gateway, "Gateway").orElse(null);
        if (obj == null) return;
        var hosts = new LinkedHashSet<>(obj.templateNames(context, out, IstioGateways.hosts(gateway, obj.annotations())));
        if (hosts.isEmpty()) return;
        List<String> targets;
        try {
            targets = IstioGateways.targets(gateway, context, out);
        } catch (IstioGateways.NoTargets e) {
            obj.problem(out, Problem.INVALID_ANNOTATION, e.getMessage() + "; its current records are kept");
            return;
        }
        if (targets.isEmpty()) return;
        long ttl = obj.ttl(out);
        int first = out.endpoints().size();
        for (String host : hosts) obj.publish(out, host, targets, ttl);
        out.finishObject(first, obj.annotations(), ttl);
    }
}
