package io.meshdns.exposure.sync;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.meshdns.exposure.source.DnsEndpointSource;
import io.meshdns.exposure.source.ObjectTranslation;
import io.meshdns.exposure.source.SourceOutput;
import io.meshdns.exposure.source.WatchedKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * The adapter between the cluster and the pure sources: one informer per kind the enabled sources read
 * ({@link ObjectTranslation#kinds()}); {@link #collect()} translates their caches. A custom resource whose CRD
 * is not installed means "no such objects": said once, and the CRD is looked for again on every pass, so a
 * CRD installed later is picked up without a restart.
 */
final class KubernetesSources implements DesiredSources {

    private static final Logger LOG = Logger.getLogger(KubernetesSources.class);
    static final ResourceDefinitionContext DNS_ENDPOINTS = DnsEndpointSource.DNS_ENDPOINTS.definitionContext();

    private final KubernetesClient client;
    private final ObjectTranslation translation;
    private final Runnable onChange;
    private final Map<String, SharedIndexInformer<? extends HasMetadata>> informers = new ConcurrentHashMap<>();
    private final Map<String, Boolean> reportedMissing = new ConcurrentHashMap<>();
    private volatile boolean started;

    KubernetesSources(KubernetesClient client, ObjectTranslation translation, Runnable onChange) {
        this.client = client;
        this.translation = translation;
        this.onChange = onChange;
    }

    @Override
    public boolean started() {
        return started;
    }

    /** Starts the informers and waits for their first list (fabric8's inform() returns once synced). */
    @Override
    public synchronized void start() {
        if (started) return;
        close();
        for (WatchedKind kind : translation.kinds()) {
            if (!kind.isCustom()) informers.put(kind.key(), inform(kind));
        }
        ensureCustomInformers();
        started = true;
    }

    private SharedIndexInformer<? extends HasMetadata> inform(WatchedKind kind) {
        if (kind.isCustom()) {
            var context = kind.definitionContext();
            return kind.namespaced() ? client.genericKubernetesResources(context).inAnyNamespace().inform(handler())
                    : client.genericKubernetesResources(context).inform(handler());
        }
        return kind.namespaced() ? client.resources(kind.type()).inAnyNamespace().inform(handler())
                : client.resources(kind.type()).inform(handler());
    }

    /** The DNSEndpoint from the informer cache; null when unknown or not watched. */
    GenericKubernetesResource dnsEndpoint(String namespace, String name) {
        var informer = informers.get(DnsEndpointSource.DNS_ENDPOINTS.key());
        return informer == null ? null : (GenericKubernetesResource) informer.getStore().getByKey(namespace + "/" + name);
    }

    private synchronized void ensureCustomInformers() {
        for (WatchedKind kind : translation.kinds()) {
            if (!kind.isCustom() || informers.containsKey(kind.key())) continue;
            try {
                if (client.apiextensions().v1().customResourceDefinitions().withName(kind.crdName()).get() == null) {
                    if (reportedMissing.putIfAbsent(kind.key(), true) == null) {
                        LOG.infof("%s CRD %s not installed: no %s objects (checked again on every pass)", kind.kind(), kind.crdName(),
                                kind.kind());
                    }
                    continue;
                }
                informers.put(kind.key(), inform(kind));
                reportedMissing.remove(kind.key());
                LOG.infof("watching %s (%s/%s)", kind.plural(), kind.group(), kind.version());
            } catch (RuntimeException e) {
                LOG.warnf("cannot watch %s yet: %s", kind.crdName(), e.getMessage());
            }
        }
    }

    private <T> ResourceEventHandler<T> handler() {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                onChange.run();
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
                onChange.run();
            }

            @Override
            public void onDelete(T obj, boolean deletedFinalStateUnknown) {
                onChange.run();
            }
        };
    }

    /** Translates the informer caches; the translation orders the objects so the plan input is deterministic. */
    @Override
    public SourceOutput collect() {
        ensureCustomInformers();
        var objects = new ArrayList<HasMetadata>();
        for (var informer : informers.values()) objects.addAll(informer.getStore().list());
        return translation.translate(objects);
    }

    @Override
    public synchronized void close() {
        informers.values().forEach(SharedIndexInformer::close);
        informers.clear();
    }
}
