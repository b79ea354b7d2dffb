package io.meshdns.exposure.testing;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.meshdns.exposure.sync.ExposureController;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import static org.awaitility.Awaitility.await;

/**
 * What the tests of the booted exposure-service do around it, the fabric8 CRUD server as the cluster: wait until
 * the controller leads with every source synced, reconcile directly (no timers) until the DNS backend shows an
 * answer, and register the CRDs of the kinds a source watches while the service runs.
 */
public final class RunningExposure {
    /** ExternalDNS's DNSEndpoint (externaldns.k8s.io/v1alpha1), the crd source's kind. */
    public static final ResourceDefinitionContext DNS_ENDPOINTS = new ResourceDefinitionContext.Builder()
            .withGroup("externaldns.k8s.io").withVersion("v1alpha1").withKind("DNSEndpoint").withPlural("dnsendpoints").withNamespaced(true).build();

    private RunningExposure() {
    }

    /** Until the controller leads and every source has synced (30 s at most). */
    public static void awaitReady(ExposureController controller) {
        await().atMost(Duration.ofSeconds(30)).until(() -> controller.isLeader() && controller.sourcesReady());
    }

    /**
     * Reconciles, then reads the backend, every {@code poll} until it answers {@code expected} (20 s at most):
     * the informer caches fill asynchronously, so one reconcile may still miss a change.
     */
    public static void reconcileUntil(ExposureController controller, Duration poll, List<String> expected, Callable<List<String>> answer) {
        await().atMost(Duration.ofSeconds(20)).pollInterval(poll).until(() -> {
            controller.reconcileNow();
            return answer.call().equals(expected);
        });
    }

    /** A namespaced custom kind, version v1. */
    public static ResourceDefinitionContext kind(String group, String kind, String plural) {
        return new ResourceDefinitionContext.Builder().withGroup(group).withVersion("v1").withKind(kind).withPlural(plural)
                .withNamespaced(true).build();
    }

    /** Registers a schema-less CRD serving {@code kind} at its version, unless it is there (a Quarkus boot is shared by tests). */
    public static void ensureCrd(KubernetesClient client, ResourceDefinitionContext kind) {
        String name = kind.getPlural() + "." + kind.getGroup();
        if (client.apiextensions().v1().customResourceDefinitions().withName(name).get() != null) return;
        client.apiextensions().v1().customResourceDefinitions().resource(new CustomResourceDefinitionBuilder()
                .withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withGroup(kind.getGroup()).withScope("Namespaced")
                .withNewNames().withKind(kind.getKind()).withPlural(kind.getPlural()).withSingular(kind.getKind().toLowerCase()).endNames()
                .addNewVersion().withName(kind.getVersion()).withServed(true).withStorage(true).endVersion()
                .endSpec().build()).create();
    }

    /**
     * Gateway API Gateway {@code default/edge}: one HTTP listener for {@code *.mesh.test}, its status address
     * {@code address}; created.
     */
    public static GenericKubernetesResource createEdgeGateway(KubernetesClient client, ResourceDefinitionContext gateways, String address) {
        return client.genericKubernetesResources(gateways).resource(new GenericKubernetesResourceBuilder()
                .withApiVersion("gateway.networking.k8s.io/v1").withKind("Gateway")
                .withNewMetadata().withNamespace("default").withName("edge").endMetadata()
                .withAdditionalProperties(Map.of(
                        "spec", Map.of("gatewayClassName", "x", "listeners", List.of(Map.of("name", "http", "protocol", "HTTP", "port", 80,
                                "hostname", "*.mesh.test"))),
                        "status", Map.of("addresses", List.of(Map.of("type", "IPAddress", "value", address)))))
                .build()).create();
    }
}
