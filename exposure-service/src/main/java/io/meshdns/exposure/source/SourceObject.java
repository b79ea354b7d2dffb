package io.meshdns.exposure.source;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.meshdns.exposure.endpoint.Endpoint;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The opening every source's translation shares, so no source repeats it: the object's annotations, the registry
 * resource key ExternalDNS writes for it, ExternalDNS's controller filter, the TTL and target annotations, and
 * Problems on the object. Built per object, per pass.
 *
 * @param object      the object being translated
 * @param kind        its kind, as Problems and Events name it
 * @param annotations its annotations, never null
 * @param resource    the registry resource key ({@code ingress/ns/name}, {@code gateway/ns/name}, …)
 */
public record SourceObject(HasMetadata object, String kind, Map<String, String> annotations, String resource) {

    public SourceObject {
        annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
    }

    /** Any object, whatever its controller annotation says. */
    public static SourceObject of(HasMetadata object, String kind) {
        var m = object.getMetadata();
        return new SourceObject(object, kind, m.getAnnotations(), SourceNames.resourceKey(kind, m.getNamespace(), m.getName()));
    }

    /** The object, unless its controller annotation names another controller (then it is not ours to publish). */
    public static Optional<SourceObject> open(HasMetadata object, String kind) {
        SourceObject o = of(object, kind);
        return Annotations.forOtherController(o.annotations) ? Optional.empty() : Optional.of(o);
    }

    public String namespace() {
        return object.getMetadata().getNamespace();
    }

    public String name() {
        return object.getMetadata().getName();
    }

    /** The TTL annotation (0 when absent); a bad value is a Problem and 0. */
    public long ttl(SourceOutput out) {
        return ServiceSource.ttlOf(object, kind, annotations, out);
    }

    public void problem(SourceOutput out, String reason, String message) {
        out.problem(object, kind, reason, message);
    }

    /** The hostname annotation's names, as written. */
    public List<String> hostnameAnnotation() {
        return Annotations.list(annotations, Annotations.HOSTNAME);
    }

    /** {@code own} names plus what meshdns.exposure.fqdn-template gives this object ({@link FqdnTemplate#names}). */
    public List<String> templateNames(SourceContext context, SourceOutput out, java.util.Collection<String> own) {
        return FqdnTemplate.names(context.settings(), object, kind, own, out);
    }

    /** The target annotation's values, normalised (IP → A/AAAA text, else a name); a bad value is a Problem and skipped. */
    public List<String> targetAnnotation(SourceOutput out) {
        var targets = new ArrayList<String>();
        for (String t : Annotations.list(annotations, Annotations.TARGET)) {
            try {
                targets.add(Endpoint.isIpLiteral(t) ? Endpoint.normalizeTarget(t.contains(":") ? "AAAA" : "A", t)
                        : Endpoint.normalizeTarget("CNAME", t));
            } catch (IllegalArgumentException e) {
                problem(out, Problem.INVALID_ANNOTATION, "target '" + t + "': " + e.getMessage());
            }
        }
        return targets;
    }

    /** Endpoints at {@code host} for mixed targets ({@link SourceOutput#addTargets}); an unusable host is a Problem. */
    public void publish(SourceOutput out, String host, List<String> targets, long ttl) {
        try {
            out.addTargets(Endpoint.normalizeHostName(host), targets, ttl, resource);
        } catch (IllegalArgumentException e) {
            problem(out, Problem.INVALID_ANNOTATION, "host '" + host + "': " + e.getMessage());
        }
    }
}
