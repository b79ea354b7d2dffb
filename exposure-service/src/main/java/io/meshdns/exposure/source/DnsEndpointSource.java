package io.meshdns.exposure.source;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.meshdns.exposure.endpoint.Endpoint;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * DNSEndpoint (externaldns.k8s.io/v1alpha1, ExternalDNS's CRD schema) → endpoints:
 * spec.endpoints[].{dnsName, recordType, targets, recordTTL, labels, setIdentifier}
 * and providerSpecific ({@code [{name, value}]}, carried through to the provider: the webhook passes
 * it on, {@code meshdns.io/shared} declares a multi-owner RRset).
 * A bad entry is reported and skipped; the other entries are still published.
 */
@Singleton
public final class DnsEndpointSource extends AbstractSource {

    public static final String GROUP = "externaldns.k8s.io";
    public static final String VERSION = "v1alpha1";
    public static final String KIND = "DNSEndpoint";
    public static final String PLURAL = "dnsendpoints";
    public static final WatchedKind DNS_ENDPOINTS = WatchedKind.custom(GROUP, VERSION, KIND, PLURAL);

    public DnsEndpointSource() {
        super("crd", DNS_ENDPOINTS);
    }

    @Override
    public void translate(HasMetadata object, SourceContext context, SourceOutput out) {
        translate((GenericKubernetesResource) object, out);
    }

    @SuppressWarnings("unchecked")
    public void translate(GenericKubernetesResource res, SourceOutput out) {
        // no controller filter: ExternalDNS's crd source publishes every DNSEndpoint it reads
        SourceObject obj = SourceObject.of(res, KIND);
        String resource = obj.resource();
        Object spec = res.getAdditionalProperties().get("spec");
        if (!(spec instanceof Map<?, ?> specMap) || !(specMap.get("endpoints") instanceof List<?> entries)) {
            return;
        }
        int index = 0;
        for (Object o : entries) {
            String where = "spec.endpoints[" + index++ + "]";
            if (!(o instanceof Map<?, ?> entry)) {
                obj.problem(out, Problem.INVALID_ENDPOINT, where + " is not an object");
                continue;
            }
            try {
                String dnsName = string(entry.get("dnsName"), where + ".dnsName");
                String type = entry.get("recordType") == null ? "A" : entry.get("recordType").toString();
                var targets = new ArrayList<String>();
                if (entry.get("targets") instanceof List<?> ts) ts.forEach(t -> targets.add(String.valueOf(t)));
                long ttl = 0;
                if (entry.get("recordTTL") instanceof Number n) ttl = n.longValue();
                else if (entry.get("recordTTL") != null) ttl = Long.parseLong(entry.get("recordTTL").toString());
                if (ttl < 0) throw new IllegalArgumentException(where + ".recordTTL is negative");
                var labels = new TreeMap<String, String>();
                if (entry.get("labels") instanceof Map<?, ?> l) l.forEach((k, v) -> labels.put(String.valueOf(k), String.valueOf(v)));
                labels.remove(Endpoint.OWNER_LABEL);
                labels.put(Endpoint.RESOURCE_LABEL, resource);
                String setId = entry.get("setIdentifier") == null ? "" : entry.get("setIdentifier").toString();
                var providerSpecific = new TreeMap<String, String>();
                if (entry.get("providerSpecific") instanceof List<?> ps) {
                    for (Object p : ps) {
                        if (p instanceof Map<?, ?> pm && pm.get("name") != null) {
                            providerSpecific.put(String.valueOf(pm.get("name")), pm.get("value") == null ? "" : String.valueOf(pm.get("value")));
                        }
                    }
                }
                Endpoint.normalizeHostName(dnsName); // validates the name
                out.endpoints().add(new Endpoint(dnsName, type, targets, ttl, labels, setId, providerSpecific));
            } catch (IllegalArgumentException e) {
                obj.problem(out, Problem.INVALID_ENDPOINT, where + ": " + e.getMessage());
            }
        }
    }

    private static String string(Object o, String field) {
        if (o == null || o.toString().isBlank()) throw new IllegalArgumentException(field + " is required");
        return o.toString();
    }
}
