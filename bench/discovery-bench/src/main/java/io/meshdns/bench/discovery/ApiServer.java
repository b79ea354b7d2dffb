package io.meshdns.bench.discovery;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaPropsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;

/**
 * One cluster's API: fabric8's Kubernetes API server in CRUD mode on a loopback port, in the harness
 * process (no real kube-apiserver can run here), with Istio's ServiceEntry CRD registered before
 * discovery's informers start, as discovery looks for it at start.
 */
final class ApiServer implements AutoCloseable {
    private final String cluster;
    private final KubernetesMockServer server;
    private final KubernetesClient client;

    ApiServer(String cluster) {
        this.cluster = cluster;
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        client = server.createClient();
        registerServiceEntryCrd();
    }

    String cluster() {
        return cluster;
    }

    KubernetesClient client() {
        return client;
    }

    /** A kubeconfig for this cluster; discovery takes a remote cluster's name from the file name. */
    Path writeKubeconfig(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(cluster + ".yaml");
        Files.writeString(file, """
                apiVersion: v1
                kind: Config
                clusters:
                - name: %1$s
                  cluster: {server: "http://127.0.0.1:%2$d"}
                contexts:
                - name: %1$s
                  context: {cluster: %1$s, user: %1$s, namespace: default}
                current-context: %1$s
                users:
                - name: %1$s
                  user: {token: %1$s-token}
                """.formatted(cluster, server.getPort()));
        return file;
    }

    /** networking.istio.io ServiceEntry v1 (storage) and v1beta1, schema-less like the real CRD. */
    private void registerServiceEntryCrd() {
        JSONSchemaProps anything = new JSONSchemaPropsBuilder().withType("object").withXKubernetesPreserveUnknownFields(true).build();
        CustomResourceDefinition crd = new CustomResourceDefinitionBuilder()
                .withNewMetadata().withName("serviceentries.networking.istio.io").endMetadata()
                .withNewSpec().withGroup("networking.istio.io").withScope("Namespaced")
                .withNewNames().withKind("ServiceEntry").withPlural("serviceentries").withSingular("serviceentry").withListKind("ServiceEntryList").endNames()
                .addNewVersion().withName("v1").withServed(true).withStorage(true).withNewSchema().withOpenAPIV3Schema(anything).endSchema().endVersion()
                .addNewVersion().withName("v1beta1").withServed(true).withStorage(false).withNewSchema().withOpenAPIV3Schema(anything).endSchema().endVersion()
                .endSpec().build();
        client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
    }

    @Override
    public void close() {
        client.close();
        server.destroy();
    }
}
