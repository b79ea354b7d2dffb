package io.meshdns.discovery.translate;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.meshdns.model.Kind;
import io.meshdns.model.ObjectRef;

/**
 * One namespaced object as its kind's translation sees it: the object, its cluster and kind name, and its ref once its
 * names pass the API server's rules. Every namespaced kind starts its translation the same way (check the names, then
 * name the object by its ref) and rejects or skips it naming the same four things; this is that start and those words.
 *
 * @param cluster     the cluster the object was read from
 * @param kindName    the Kubernetes kind as a rejection names it ({@code Service}, {@code ServiceEntry})
 * @param object      the object itself
 * @param ref         the object's ref; null when {@code nameProblem} is set (a name too bad to name it by)
 * @param nameProblem why the object's name or namespace cannot be served, null when both are valid
 */
public record NamespacedObject(String cluster, String kindName, HasMetadata object, ObjectRef ref, String nameProblem) {

    /** {@code o} of {@code kind}, its name checked by {@code nameRule} and its namespace as a DNS-1123 label. */
    public static NamespacedObject of(String cluster, Kind kind, String kindName, HasMetadata o, ObjectNames.Rule nameRule) {
        String problem = ObjectNames.problem(o, nameRule, true);
        ObjectRef ref = problem != null ? null : new ObjectRef(cluster, kind, ObjectNames.namespaceOf(o), ObjectNames.name(o));
        return new NamespacedObject(cluster, kindName, o, ref, problem);
    }

    /** The object's name; only once its names passed ({@code nameProblem} null). */
    public String name() {
        return ref.name();
    }

    /** The object's namespace ({@code default} when it has none); only once its names passed. */
    public String namespace() {
        return ref.namespace();
    }

    /** The rejection of its bad name: the translation of an object whose {@code nameProblem} is set. */
    public Translation rejectName() {
        return reject(nameProblem);
    }

    /** The object is malformed for {@code reason}. */
    public Translation reject(String reason) {
        return Translation.rejected(ref, kindName, cluster, object, reason);
    }

    /** The object is valid but gives no records, for {@code why}. */
    public Translation skip(String why) {
        return new Translation.Skipped(ref, why);
    }
}
