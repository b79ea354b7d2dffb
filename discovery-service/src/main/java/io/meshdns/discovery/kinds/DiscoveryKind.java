package io.meshdns.discovery.kinds;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.meshdns.discovery.config.DiscoveryConfig;
import io.meshdns.discovery.translate.Translation;
import io.meshdns.model.Kind;

import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Predicate;

/**
 * One Kubernetes kind discovery reads, everything about it in one row of {@link DiscoveryKinds} (written by its
 * {@link KindDefinition}): its API versions and resource, how a cluster watcher lists and watches it, how an object of
 * it is recognised (typed fabric8 class, or kind name and API group for custom resources) and translated, and what
 * turns it on.
 *
 * @param kind         the catalog's kind
 * @param kindName     the Kubernetes kind ({@code Service}, {@code ServiceEntry})
 * @param resource     the API's resource name ({@code services}, {@code serviceentries}): what discovery's RBAC
 *                     lists and watches (generated from this table: api-calls.txt and k8s/base)
 * @param apiVersions  the versions it is read at, preferred first; a custom resource is watched at the first one
 *                     its cluster serves, and not at all (idle, checked again every crd-retry-interval) until one is
 * @param typedClass   the fabric8 class of a built-in kind, null for a custom resource (read as a generic resource;
 *                     its CRD may be missing)
 * @param informer     a not-yet-started informer over every namespace, at the given version and resync period
 * @param translator   the pure translation of one object (the kind's class, with helpers from {@code translate/})
 * @param switchedBy   the key that turns an optional kind on; null for a kind that is always read
 */
public record DiscoveryKind(Kind kind, String kindName, String resource, List<String> apiVersions,
                            Class<? extends HasMetadata> typedClass, Informers informer,
                            BiFunction<String, HasMetadata, Translation> translator, Switch switchedBy) {

    /** Builds the informer of a kind on one cluster. */
    @FunctionalInterface
    public interface Informers {
        SharedIndexInformer<? extends HasMetadata> create(KubernetesClient client, String apiVersion, long resyncMillis);
    }

    /**
     * The configuration key of an optional kind ({@code meshdns.discovery.watch-pods}) and how it reads from the
     * mapping ({@code DiscoveryConfig::watchPods}); DiscoveryKindsTest checks the two name the same key.
     */
    public record Switch(String key, Predicate<DiscoveryConfig> isOn) {
    }

    /**
     * The row of a custom resource: read as generic resources of {@code kindName} in every namespace, at the version
     * the watcher picked, each translated by {@code translate}.
     */
    public static DiscoveryKind customResource(Kind kind, String kindName, String resource, List<String> apiVersions,
                                               BiFunction<String, GenericKubernetesResource, Translation> translate,
                                               Switch switchedBy) {
        return new DiscoveryKind(kind, kindName, resource, apiVersions, null,
                (c, version, resync) -> c.genericKubernetesResources(version, kindName).inAnyNamespace().runnableInformer(resync),
                (cluster, o) -> translate.apply(cluster, (GenericKubernetesResource) o), switchedBy);
    }

    /** A custom resource: read as a generic resource, watched once its CRD is served. */
    public boolean custom() {
        return typedClass == null;
    }

    /** Switched by one of the watcher's optional kinds; the others are always on. */
    public boolean optional() {
        return switchedBy != null;
    }

    /** Whether {@code obj} is of this kind: by class for built-in kinds, by kind name and API group otherwise. */
    public boolean matches(HasMetadata obj) {
        if (typedClass != null) return typedClass.isInstance(obj);
        if (!(obj instanceof GenericKubernetesResource g) || !kindName.equals(g.getKind())) return false;
        String group = groupOf(g.getApiVersion());
        for (String v : apiVersions) {
            if (groupOf(v).equals(group)) return true;
        }
        return false;
    }

    /** On for a watcher whose optional kinds are {@code enabledOptional}. */
    public boolean enabled(Set<Kind> enabledOptional) {
        return !optional() || enabledOptional.contains(kind);
    }

    /** The API group of the preferred version; "" for the core group. */
    public String group() {
        return groupOf(apiVersions.get(0));
    }

    static String groupOf(String apiVersion) {
        if (apiVersion == null) return "";
        int slash = apiVersion.indexOf('/');
        return slash < 0 ? "" : apiVersion.substring(0, slash);
    }
}
