package io.meshdns.exposure.sync;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.meshdns.exposure.testing.BindBackedExposureTest;
import io.meshdns.exposure.testing.BindTestResource;
import io.meshdns.exposure.testing.RunningExposure;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A route attached through a ListenerSet, end to end (fabric8 CRUD server, real BIND9, {@code meshdns.exposure.gateway.listener-sets=true}
 * in the test profile): the CRDs registered first, then the informers pick the kinds up; the route is published at the parent
 * Gateway's address and withdrawn with its ListenerSet; a ListenerSet whose Gateway does not exist gets a Warning.
 */
@QuarkusTest
@WithKubernetesTestServer(crud = true)
@WithTestResource(BindTestResource.class)
class ListenerSetEndToEndTest extends BindBackedExposureTest {

    static final String GROUP = "gateway.networking.k8s.io";
    static final ResourceDefinitionContext GATEWAYS = context("Gateway", "gateways");
    static final ResourceDefinitionContext LISTENER_SETS = context("ListenerSet", "listenersets");
    static final ResourceDefinitionContext HTTP_ROUTES = context("HTTPRoute", "httproutes");

    static ResourceDefinitionContext context(String kind, String plural) {
        return RunningExposure.kind(GROUP, kind, plural);
    }

    void ensureCrd(ResourceDefinitionContext kind) {
        RunningExposure.ensureCrd(client, kind);
    }

    GenericKubernetesResource object(ResourceDefinitionContext kind, String name, Map<String, Object> fields) {
        return client.genericKubernetesResources(kind).resource(new GenericKubernetesResourceBuilder().withApiVersion(GROUP + "/v1")
                .withKind(kind.getKind()).withNewMetadata().withNamespace("default").withName(name).endMetadata()
                .withAdditionalProperties(fields).build()).create();
    }

    /** A route under ListenerSet {@code ls}, its status saying that parent accepted the route's current generation. */
    void route(String name, String host, String ls) {
        Map<String, Object> ref = Map.of("group", GROUP, "kind", "ListenerSet", "name", ls);
        object(HTTP_ROUTES, name, Map.of("spec", Map.of("hostnames", List.of(host), "parentRefs", List.of(ref))));
        GenericKubernetesResource r = client.genericKubernetesResources(HTTP_ROUTES).inNamespace("default").withName(name).get();
        long generation = r.getMetadata().getGeneration() == null ? 0 : r.getMetadata().getGeneration();
        r.getAdditionalProperties().put("status", Map.of("parents", List.of(Map.of("parentRef", ref, "controllerName", "example.io/gw",
                "conditions", List.of(Map.of("type", "Accepted", "status", "True", "observedGeneration", generation))))));
        client.genericKubernetesResources(HTTP_ROUTES).resource(r).update();
    }

    static Map<String, Object> listenerSet(String gateway) {
        Map<String, Object> accepted = Map.of("type", "Accepted", "status", "True");
        return Map.of("spec", Map.of("parentRef", Map.of("name", gateway), "listeners", List.of(Map.of("name", "app", "protocol", "HTTP",
                        "port", 8080, "hostname", "*.ls.mesh.test"))),
                "status", Map.of("conditions", List.of(accepted), "listeners", List.of(Map.of("name", "app", "conditions", List.of(accepted)))));
    }

    void reconcileUntil(String name, List<String> expected) {
        reconcileUntil(name, "A", expected);
    }

    @Test
    void aRouteUnderAListenerSetIsPublishedAtItsGatewaysAddress() {
        ensureCrd(GATEWAYS);
        ensureCrd(LISTENER_SETS);
        ensureCrd(HTTP_ROUTES);
        object(GATEWAYS, "shared", Map.of("spec", Map.of("gatewayClassName", "x", "allowedListeners", Map.of("namespaces", Map.of("from", "Same")),
                        "listeners", List.of(Map.of("name", "http", "protocol", "HTTP", "port", 80))),
                "status", Map.of("addresses", List.of(Map.of("type", "IPAddress", "value", "203.0.113.60")))));
        object(LISTENER_SETS, "team", listenerSet("shared"));
        route("team-app", "app.ls.mesh.test", "team");
        reconcileUntil("app.ls.mesh.test", List.of("203.0.113.60"));

        object(LISTENER_SETS, "orphan", listenerSet("missing"));
        route("orphan-app", "orphan.ls.mesh.test", "orphan");
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            controller.reconcileNow();
            return client.v1().events().inNamespace("default").list().getItems().stream()
                    .anyMatch(e -> "orphan".equals(e.getInvolvedObject().getName()) && "ListenerSet".equals(e.getInvolvedObject().getKind())
                            && "ListenerSetWithoutGateway".equals(e.getReason()));
        });
        assertEquals(List.of("203.0.113.60"), unchecked(() -> BindTestResource.bind().dig("app.ls.mesh.test", "A")), "the pass went on");

        client.genericKubernetesResources(LISTENER_SETS).inNamespace("default").withName("team").delete();
        reconcileUntil("app.ls.mesh.test", List.of());
        for (String r : List.of("team-app", "orphan-app")) client.genericKubernetesResources(HTTP_ROUTES).inNamespace("default").withName(r).delete();
        client.genericKubernetesResources(LISTENER_SETS).inNamespace("default").withName("orphan").delete();
        client.genericKubernetesResources(GATEWAYS).inNamespace("default").withName("shared").delete();
    }

    static <T> T unchecked(java.util.concurrent.Callable<T> c) {
        try {
            return c.call();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
