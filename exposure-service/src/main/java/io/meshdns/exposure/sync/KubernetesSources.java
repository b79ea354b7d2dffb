package io.meshdns.exposure.sync;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.meshdns.exposure.source.DnsEndpointSource;
import io.meshdns.exposure.source.ObjectTranslation;
import io.meshdns.exposure.source.SourceOutput;
import io.meshdns.exposure.source.SourceSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * The adapter between the cluster and the pure sources: informers on Services, Nodes,
 * EndpointSlices, Ingresses and DNSEndpoints; {@link #collect()} translates their caches.
 * A missing DNSEndpoint CRD means "no DNSEndpoints"; the informer is retried on every pass.
 */
final class KubernetesSources implements DesiredSources {

    private static final Logger LOG = Logger.getLogger(KubernetesSources.class);
    static final ResourceDefinitionContext DNS_ENDPOINTS = new ResourceDefinitionContext.Builder()
            .withGroup(DnsEndpointSource.GROUP).withVersion(DnsEndpointSource.VERSION).withKind(DnsEndpointSource.KIND)
            .withPlural(DnsEndpointSource.PLURAL).withNamespaced(true).build();

    private final KubernetesClient client;
    private final Set<String> enabled;
    private final ObjectTranslation translation;
    private final Runnable onChange;
    private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
    private SharedIndexInformer<Service> serviceInformer;
    private SharedIndexInformer<Node> nodeInformer;
    private SharedIndexInformer<EndpointSlice> sliceInformer;
    private SharedIndexInformer<Ingress> ingressInformer;
    private volatile SharedIndexInformer<GenericKubernetesResource> dnsEndpointInformer;

    KubernetesSources(KubernetesClient client, SourceSettings settings, Set<String> enabled, Runnable onChange) {
        this.client = client;
        this.enabled = enabled;
        this.translation = new ObjectTranslation(settings, enabled);
        this.onChange = onChange;
    }

    private volatile boolean started;

    @Override
    public boolean started() {
        return started;
    }

    /** Starts the informers and waits for their first list (fabric8's inform() returns once synced). */
    @Override
    public synchronized void start() {
        if (started) return;
        close();
        if (enabled.contains("service")) {
            serviceInformer = track(client.services().inAnyNamespace().inform(handler()));
            nodeInformer = track(client.nodes().inform(handler()));
            sliceInformer = track(client.discovery().v1().endpointSlices().inAnyNamespace().inform(handler()));
        }
        if (enabled.contains("ingress")) {
            ingressInformer = track(client.network().v1().ingresses().inAnyNamespace().inform(handler()));
        }
        ensureDnsEndpointInformer();
        started = true;
    }

    /** The DNSEndpoint from the informer cache; null when unknown or not watched. */
    GenericKubernetesResource dnsEndpoint(String namespace, String name) {
        var informer = dnsEndpointInformer;
        return informer == null ? null : informer.getStore().getByKey(namespace + "/" + name);
    }

    private <T> SharedIndexInformer<T> track(SharedIndexInformer<T> informer) {
        informers.add(informer);
        return informer;
    }

    private synchronized void ensureDnsEndpointInformer() {
        if (!enabled.contains("crd") || dnsEndpointInformer != null) return;
        try {
            if (client.apiextensions().v1().customResourceDefinitions().withName(DnsEndpointSource.PLURAL + "." + DnsEndpointSource.GROUP).get() == null) {
                LOG.debug("DNSEndpoint CRD not installed: no DNSEndpoints (checked again on the next pass)");
                return;
            }
            dnsEndpointInformer = track(client.genericKubernetesResources(DNS_ENDPOINTS).inAnyNamespace().inform(handler()));
            LOG.info("watching DNSEndpoints (externaldns.k8s.io/v1alpha1)");
        } catch (RuntimeException e) {
            LOG.warnf("cannot watch DNSEndpoints yet: %s", e.getMessage());
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

    /** Translates the informer caches; objects in a stable order so the plan input is deterministic. */
    @Override
    public SourceOutput collect() {
        ensureDnsEndpointInformer();
        return translation.translate(cached(serviceInformer), cached(nodeInformer), cached(sliceInformer), cached(ingressInformer),
                cached(dnsEndpointInformer));
    }

    private static <T> List<T> cached(SharedIndexInformer<T> informer) {
        return informer == null ? List.of() : informer.getStore().list();
    }

    @Override
    public void close() {
        informers.forEach(SharedIndexInformer::close);
        informers.clear();
        dnsEndpointInformer = null;
    }
}
