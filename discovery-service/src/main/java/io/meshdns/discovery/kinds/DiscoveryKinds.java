package io.meshdns.discovery.kinds;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.meshdns.discovery.translate.Translation;
import io.meshdns.discovery.translate.Translator;
import io.meshdns.model.Kind;
import io.meshdns.model.ObjectRef;

import java.util.List;

/**
 * The kind table: every Kubernetes kind discovery reads, one row each. The cluster watchers start an informer
 * per enabled row, the manifest files and the informers translate through it, so a kind's versions, informer,
 * translation and switch are written once. Adding a kind: its catalog entry in record-model, its pure
 * translation in {@code translate/}, one row here, and its RBAC lines (ARCHITECTURE.md).
 */
public final class DiscoveryKinds {
    private DiscoveryKinds() {
    }

    public static final List<DiscoveryKind> ALL = List.of(
            new DiscoveryKind(Kind.NAMESPACE, "Namespace", List.of("v1"), false, Namespace.class,
                    (c, version, resync) -> c.namespaces().runnableInformer(resync),
                    (cluster, o) -> Translator.namespace(cluster, (Namespace) o), false),
            new DiscoveryKind(Kind.SERVICE, "Service", List.of("v1"), false, Service.class,
                    (c, version, resync) -> c.services().inAnyNamespace().runnableInformer(resync),
                    (cluster, o) -> Translator.service(cluster, (Service) o), false),
            new DiscoveryKind(Kind.ENDPOINT_SLICE, "EndpointSlice", List.of("discovery.k8s.io/v1"), false, EndpointSlice.class,
                    (c, version, resync) -> c.discovery().v1().endpointSlices().inAnyNamespace().runnableInformer(resync),
                    (cluster, o) -> Translator.endpointSlice(cluster, (EndpointSlice) o), false),
            new DiscoveryKind(Kind.POD, "Pod", List.of("v1"), false, Pod.class,
                    (c, version, resync) -> c.pods().inAnyNamespace().runnableInformer(resync),
                    (cluster, o) -> Translator.pod(cluster, (Pod) o), true),
            // Istio serves ServiceEntry as v1 since 1.22; older meshes only have v1beta1.
            new DiscoveryKind(Kind.SERVICE_ENTRY, "ServiceEntry",
                    List.of(Translator.ISTIO_GROUP + "/v1", Translator.ISTIO_GROUP + "/v1beta1"), true, null,
                    (c, version, resync) -> c.genericKubernetesResources(version, "ServiceEntry").inAnyNamespace().runnableInformer(resync),
                    (cluster, o) -> Translator.serviceEntry(cluster, (GenericKubernetesResource) o), true),
            new DiscoveryKind(Kind.SERVICE_IMPORT, "ServiceImport", List.of(Translator.MCS_GROUP + "/v1alpha1"), true, null,
                    (c, version, resync) -> c.genericKubernetesResources(version, "ServiceImport").inAnyNamespace().runnableInformer(resync),
                    (cluster, o) -> Translator.serviceImport(cluster, (GenericKubernetesResource) o), true));

    /** The row {@code obj} belongs to, or null for a kind discovery does not read. */
    public static DiscoveryKind of(HasMetadata obj) {
        for (DiscoveryKind k : ALL) {
            if (k.matches(obj)) return k;
        }
        return null;
    }

    /** The row of {@code kind}. */
    public static DiscoveryKind of(Kind kind) {
        for (DiscoveryKind k : ALL) {
            if (k.kind() == kind) return k;
        }
        throw new IllegalArgumentException("no row for " + kind);
    }

    /** Translates any object; an unsupported kind is {@link Translation.Skipped} with a null ref. */
    public static Translation translate(String cluster, HasMetadata obj) {
        DiscoveryKind k = of(obj);
        if (k == null) return new Translation.Skipped(null, "unsupported kind " + obj.getApiVersion() + "/" + obj.getKind());
        return k.translator().apply(cluster, obj);
    }

    public static Kind kindOf(HasMetadata obj) {
        DiscoveryKind k = of(obj);
        return k == null ? null : k.kind();
    }

    /** The ref an object has (or had), null for an unknown kind or a missing name (see {@link Translator#refOf}). */
    public static ObjectRef refOf(String cluster, HasMetadata obj) {
        Kind kind = kindOf(obj);
        return kind == null ? null : Translator.refOf(cluster, kind, obj);
    }
}
