package io.meshdns.testsupport;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MockKubernetesClusterTest {
    @TempDir
    Path tmp;

    @Test
    void servesServiceEntriesThroughTheRegisteredCrd() {
        try (MockKubernetesCluster cluster = new MockKubernetesCluster("east")) {
            KubernetesClient client = cluster.client();
            CustomResourceDefinition crd = client.apiextensions().v1().customResourceDefinitions().withName(ServiceEntryCrd.NAME).get();
            assertEquals(List.of("v1", "v1beta1"), crd.getSpec().getVersions().stream().filter(v -> v.getServed()).map(v -> v.getName()).toList());
            GenericKubernetesResource se = new GenericKubernetesResourceBuilder()
                    .withApiVersion("networking.istio.io/v1").withKind("ServiceEntry")
                    .withNewMetadata().withName("legacy").withNamespace("shop").endMetadata()
                    .addToAdditionalProperties("spec", Map.of("hosts", List.of("legacy.service.entry")))
                    .build();
            client.genericKubernetesResources("networking.istio.io/v1", "ServiceEntry").inNamespace("shop").resource(se).create();
            assertEquals(1, client.genericKubernetesResources("networking.istio.io/v1", "ServiceEntry").inAnyNamespace().list().getItems().size());
        }
    }

    @Test
    void anOutageKeepsThePortAndTheObjects() throws Exception {
        try (MockKubernetesCluster cluster = new MockKubernetesCluster("west")) {
            cluster.client().namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("shop").endMetadata().build()).create();
            String url = cluster.url();
            Path kubeconfig = cluster.writeKubeconfig(tmp.resolve("remotes"));
            assertEquals("west.yaml", kubeconfig.getFileName().toString());

            cluster.stop();
            try (KubernetesClient down = fromKubeconfig(kubeconfig)) {
                assertThrows(KubernetesClientException.class, () -> down.namespaces().withName("shop").get());
            }

            cluster.start();
            assertEquals(url, cluster.url());
            try (KubernetesClient viaKubeconfig = fromKubeconfig(kubeconfig)) {
                assertNotNull(viaKubeconfig.namespaces().withName("shop").get());
                assertEquals("default", viaKubeconfig.getNamespace());
            }
        }
    }

    private static KubernetesClient fromKubeconfig(Path file) throws Exception {
        Config config = Config.fromKubeconfig(null, Files.readString(file), file.toString());
        config.setRequestRetryBackoffLimit(0);
        config.setConnectionTimeout(1000);
        config.setRequestTimeout(1000);
        assertTrue(config.getMasterUrl().startsWith("http://127.0.0.1:"), config.getMasterUrl());
        return new KubernetesClientBuilder().withConfig(config).build();
    }
}
