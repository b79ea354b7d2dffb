package io.meshdns.exposure.sync;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshdns.exposure.source.Problem;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jboss.logging.Logger;

/**
 * Feedback on the objects themselves: a Kubernetes Event per object and state ({@code Published}
 * Normal; {@code Invalid}, {@code Conflict}, {@code InvalidAnnotation}, {@code InvalidEndpoint}
 * Warning), posted once per change of what is said about the object, not every pass; and on a
 * DNSEndpoint a {@code status.conditions} entry of type {@code Published} with the same reason.
 * Without a cluster (manifests, once) the same lines are only logged.
 */
final class ProblemReporter {

    private static final Logger LOG = Logger.getLogger(ProblemReporter.class);

    private final KubernetesClient client;
    private final java.util.function.BiFunction<String, String, GenericKubernetesResource> dnsEndpoints;
    /** resource key → what was last said about it (reason: message), to post only changes. */
    private final Map<String, String> said = new HashMap<>();

    /** @param dnsEndpoints the DNSEndpoint (namespace, name) from the informer cache (we never GET: RBAC grants list/watch only) */
    ProblemReporter(KubernetesClient client, java.util.function.BiFunction<String, String, GenericKubernetesResource> dnsEndpoints) {
        this.client = client;
        this.dnsEndpoints = dnsEndpoints;
    }

    /** Reports this pass's problems and, for every object published without one, a Published event. */
    synchronized void report(List<Problem> problems, List<Problem> published) {
        var now = new LinkedHashMap<String, List<Problem>>();
        for (Problem p : problems) now.computeIfAbsent(p.resourceKey(), k -> new ArrayList<>()).add(p);
        for (Problem p : published) {
            if (!now.containsKey(p.resourceKey())) now.put(p.resourceKey(), List.of(p));
        }
        for (var e : now.entrySet()) {
            List<Problem> list = e.getValue();
            String text = String.join("; ", list.stream().map(p -> p.reason() + ": " + p.message()).distinct().toList());
            if (text.equals(said.get(e.getKey()))) continue;
            said.put(e.getKey(), text);
            for (Problem p : list) {
                if (p.normal()) LOG.infof("%s %s/%s: %s", p.kind(), p.namespace(), p.name(), p.message());
                else LOG.warnf("%s %s/%s: %s: %s", p.kind(), p.namespace(), p.name(), p.reason(), p.message());
                postEvent(p);
            }
            Problem first = list.stream().filter(p -> !p.normal()).findFirst().orElse(list.get(0));
            if ("DNSEndpoint".equals(first.kind())) setCondition(first, text);
        }
        // objects with nothing to say any more (fixed or gone) may be reported again later
        said.keySet().retainAll(keysOfProblemsOrPublished(problems, published));
    }

    /** ExternalDNS's record events: posted each time (every one stands for a record written, deleted or refused). */
    synchronized void record(List<Problem> events) {
        for (Problem p : events) {
            LOG.debugf("%s %s/%s: %s: %s", p.kind(), p.namespace(), p.name(), p.reason(), p.message());
            postEvent(p);
        }
    }

    private static java.util.Set<String> keysOfProblemsOrPublished(List<Problem> problems, List<Problem> published) {
        var s = new java.util.HashSet<String>();
        problems.forEach(p -> s.add(p.resourceKey()));
        published.forEach(p -> s.add(p.resourceKey()));
        return s;
    }

    private void postEvent(Problem p) {
        if (client == null) return;
        try {
            String now = Instant.now().toString();
            Event event = new EventBuilder()
                    .withNewMetadata().withNamespace(p.namespace())
                    .withName(p.name() + "." + Long.toHexString(System.nanoTime())).endMetadata()
                    .withInvolvedObject(new ObjectReferenceBuilder().withKind(p.kind()).withApiVersion(p.apiVersion())
                            .withNamespace(p.namespace()).withName(p.name()).withUid(p.uid()).build())
                    .withType(p.normal() ? "Normal" : "Warning").withReason(p.reason()).withMessage(p.message())
                    .withNewSource().withComponent("meshdns-exposure").endSource()
                    .withReportingComponent("meshdns-exposure")
                    .withFirstTimestamp(now).withLastTimestamp(now).withCount(1)
                    .build();
            client.v1().events().inNamespace(p.namespace()).resource(event).create();
        } catch (RuntimeException e) {
            LOG.debugf("cannot post Event for %s/%s: %s", p.namespace(), p.name(), e.getMessage());
        }
    }

    /** status.conditions[type=Published] on the DNSEndpoint: True with reason Published, else False with the problem's reason. */
    @SuppressWarnings("unchecked")
    private void setCondition(Problem p, String message) {
        if (client == null) return;
        try {
            GenericKubernetesResource cached = dnsEndpoints.apply(p.namespace(), p.name());
            if (cached == null) return;
            // a copy: the informer's object must stay as the API server sent it
            GenericKubernetesResource obj = client.getKubernetesSerialization().clone(cached);
            Map<String, Object> status = obj.getAdditionalProperties().get("status") instanceof Map<?, ?> m
                    ? new LinkedHashMap<>((Map<String, Object>) m) : new LinkedHashMap<>();
            var condition = new LinkedHashMap<String, Object>();
            condition.put("type", "Published");
            condition.put("status", p.normal() ? "True" : "False");
            condition.put("reason", p.reason());
            condition.put("message", message.length() > 1000 ? message.substring(0, 1000) : message);
            condition.put("lastTransitionTime", Instant.now().toString().replaceFirst("\\.\\d+Z$", "Z"));
            if (obj.getMetadata().getGeneration() != null) condition.put("observedGeneration", obj.getMetadata().getGeneration());
            status.put("conditions", List.of(condition));
            if (obj.getMetadata().getGeneration() != null) status.put("observedGeneration", obj.getMetadata().getGeneration());
            obj.getAdditionalProperties().put("status", status);
            client.genericKubernetesResources(KubernetesSources.DNS_ENDPOINTS).resource(obj).updateStatus();
        } catch (RuntimeException e) {
            LOG.debugf("cannot set status of DNSEndpoint %s/%s: %s", p.namespace(), p.name(), e.getMessage());
        }
    }
}
