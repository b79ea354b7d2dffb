package io.meshdns.it.testing;

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
 * One "cluster": a fabric8 Kubernetes API server in CRUD mode on a loopback port, in the test JVM, with
 * the Istio ServiceEntry CRD registered. {@link #stop()} and {@link #start()} take the API away and
 * bring it back on the same port with the same objects (the CRUD store lives in the dispatcher), as
 * an API server outage looks to discovery.
 */
public final class MockCluster implements AutoCloseable {
    private final String name;
    private final KubernetesCrudDispatcher dispatcher = new KubernetesCrudDispatcher();
    private KubernetesMockServer server;
    private KubernetesClient client;
    private int port;

    public MockCluster(String name) {
        this.name = name;
        start();
        registerServiceEntryCrd(client);
    }

    public synchronized void start() {
        if (server != null) return;
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), dispatcher, false);
        server.init(InetAddress.getLoopbackAddress(), port);
        port = server.getPort();
        client = server.createClient();
    }

    public synchronized void stop() {
        if (server == null) return;
        client.close();
        server.destroy();
        server = null;
    }

    public String name() {
        return name;
    }

    public synchronized KubernetesClient client() {
        return client;
    }

    public String url() {
        return "http://127.0.0.1:" + port;
    }

    /** A kubeconfig for this cluster; the file name (without extension) is the cluster name for discovery. */
    public Path writeKubeconfig(Path dir) throws IOException {
        Path file = dir.resolve(name + ".yaml");
        Files.writeString(file, """
                apiVersion: v1
                kind: Config
                clusters:
                - name: %1$s
                  cluster: {server: "%2$s"}
                contexts:
                - name: %1$s
                  context: {cluster: %1$s, user: %1$s}
                current-context: %1$s
                users:
                - name: %1$s
                  user: {token: %1$s-token}
                """.formatted(name, url()));
        return file;
    }

    @Override
    public void close() {
        stop();
    }

    /** networking.istio.io ServiceEntry, v1 (storage) and v1beta1, schema-less like the real CRD's preserve-unknown-fields. */
    public static void registerServiceEntryCrd(KubernetesClient client) {
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
}
