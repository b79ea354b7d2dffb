package io.meshdns.exposure.source;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

/**
 * A Kubernetes kind a {@link Source} reads. A built-in kind carries its fabric8 model class and is watched
 * with a typed informer; a custom resource has none ({@code type == null}), is read as a
 * {@link GenericKubernetesResource} and is watched only once its CRD ({@code plural.group}) is installed.
 *
 * @param group      API group, "" for the core group
 * @param version    the API version read
 * @param kind       the object kind, also the kind Problems and Events name
 * @param plural     the resource's plural name
 * @param namespaced whether objects live in a namespace
 * @param type       the fabric8 model class, null for a custom resource
 */
public record WatchedKind(String group, String version, String kind, String plural, boolean namespaced,
                          Class<? extends HasMetadata> type) {

    public static WatchedKind builtIn(Class<? extends HasMetadata> type, String group, String version, String kind, String plural,
                                      boolean namespaced) {
        return new WatchedKind(group, version, kind, plural, namespaced, type);
    }

    public static WatchedKind custom(String group, String version, String kind, String plural) {
        return new WatchedKind(group, version, kind, plural, true, null);
    }

    public boolean isCustom() {
        return type == null;
    }

    /**
     * The kind's identity across groups ({@code Gateway.networking.istio.io} is not {@code Gateway.gateway.networking.k8s.io}):
     * what informers, manifests and a pass's objects are keyed by.
     */
    public String key() {
        return group.isEmpty() ? kind : kind + "." + group;
    }

    /** How fabric8 addresses it as a generic resource (custom resources, and tests that create them). */
    public ResourceDefinitionContext definitionContext() {
        return new ResourceDefinitionContext.Builder().withGroup(group).withVersion(version).withKind(kind).withPlural(plural)
                .withNamespaced(namespaced).build();
    }

    /** The CRD's name: {@code plural.group}. */
    public String crdName() {
        return plural + "." + group;
    }

    /**
     * Whether an object (from a manifest or an informer) is of this kind; custom resources match any version, and
     * whatever class the parser chose (a model jar on the class path may type them).
     */
    public boolean matches(HasMetadata o) {
        if (type != null) return type.isInstance(o);
        if (!kind.equals(o.getKind())) return false;
        String apiVersion = o.getApiVersion() == null ? "" : o.getApiVersion();
        int slash = apiVersion.indexOf('/');
        return group.equals(slash < 0 ? "" : apiVersion.substring(0, slash));
    }
}
