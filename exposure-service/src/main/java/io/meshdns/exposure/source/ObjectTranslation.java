package io.meshdns.exposure.source;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.jboss.logging.Logger;

/**
 * One pass's objects → desired endpoints, the same for the cluster's informer caches and for manifest
 * files. Each object is translated on its own: whatever one object's translation throws (an address the
 * API server would have refused, a value no annotation check foresaw) drops only what that object added
 * and becomes an {@link Problem#INVALID} problem on it, so its resource counts as errored and the plan
 * keeps its current records; every other object is still published.
 */
public final class ObjectTranslation {

    private static final Logger LOG = Logger.getLogger(ObjectTranslation.class);
    private static final Comparator<HasMetadata> BY_NAMESPACE_AND_NAME =
            Comparator.comparing((HasMetadata o) -> o.getMetadata().getNamespace() + "/" + o.getMetadata().getName());

    private final Set<String> enabled;
    private final ServiceSource services;
    private final IngressSource ingresses = new IngressSource();
    private final DnsEndpointSource dnsEndpoints = new DnsEndpointSource();

    /** {@code enabled}: the source names of {@code meshdns.exposure.sources} (service, ingress, crd). */
    public ObjectTranslation(SourceSettings settings, Set<String> enabled) {
        this.enabled = Set.copyOf(enabled);
        this.services = new ServiceSource(settings);
    }

    /** The objects of one pass; a kind whose source is not enabled is ignored. Objects are taken in a stable order. */
    public SourceOutput translate(List<Service> serviceList, List<Node> nodes, List<EndpointSlice> slices, List<Ingress> ingressList,
                                  List<GenericKubernetesResource> dnsEndpointList) {
        var out = new SourceOutput();
        if (enabled.contains("service")) {
            Map<String, List<EndpointSlice>> slicesByService = byService(slices);
            for (Service svc : sorted(serviceList)) {
                List<EndpointSlice> own = slicesByService.getOrDefault(svc.getMetadata().getNamespace() + "/" + svc.getMetadata().getName(), List.of());
                guarded(out, svc, "Service", o -> services.translate(svc, nodes, own, o));
            }
        }
        if (enabled.contains("ingress")) {
            for (Ingress ing : sorted(ingressList)) guarded(out, ing, "Ingress", o -> ingresses.translate(ing, o));
        }
        if (enabled.contains("crd")) {
            for (GenericKubernetesResource d : sorted(dnsEndpointList)) guarded(out, d, DnsEndpointSource.KIND, o -> dnsEndpoints.translate(d, o));
        }
        return out;
    }

    private static void guarded(SourceOutput out, HasMetadata obj, String kind, Consumer<SourceOutput> translation) {
        int mark = out.endpoints().size();
        try {
            translation.accept(out);
        } catch (RuntimeException | StackOverflowError e) {
            out.endpoints().subList(mark, out.endpoints().size()).clear();
            String message = "cannot be translated (" + e + "); its current records are kept";
            LOG.warnf("%s %s/%s %s", kind, obj.getMetadata().getNamespace(), obj.getMetadata().getName(), message);
            out.problem(obj, kind, Problem.INVALID, message);
        }
    }

    private static Map<String, List<EndpointSlice>> byService(List<EndpointSlice> slices) {
        var out = new HashMap<String, List<EndpointSlice>>();
        for (EndpointSlice s : slices) {
            Map<String, String> labels = s.getMetadata().getLabels();
            String svc = labels == null ? null : labels.get("kubernetes.io/service-name");
            if (svc != null) out.computeIfAbsent(s.getMetadata().getNamespace() + "/" + svc, k -> new ArrayList<>()).add(s);
        }
        return out;
    }

    private static <T extends HasMetadata> List<T> sorted(List<T> list) {
        var copy = new ArrayList<>(list);
        copy.sort(BY_NAMESPACE_AND_NAME);
        return copy;
    }
}
