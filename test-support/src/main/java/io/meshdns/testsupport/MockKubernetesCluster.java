package io.meshdns.testsupport;

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
 * One cluster's API: fabric8's Kubernetes API server in CRUD mode on a loopback port, in this JVM (no real
 * kube-apiserver runs here), with Istio's ServiceEntry CRD registered before anything can watch it.
 * {@link #stop()} and {@link #start()} take the API away and bring it back on the same port with the same
 * objects (the CRUD store lives in the dispatcher), as an API server outage looks to discovery.
 */
public final class MockKubernetesCluster implements AutoCloseable {
    private final String name;
    private final KubernetesCrudDispatcher dispatcher;
    private KubernetesMockServer server;
    private KubernetesClient client;
    private int port;

    public MockKubernetesCluster(String name) {
        this(name, new KubernetesCrudDispatcher());
    }

    /**
     * With another CRUD dispatcher, e.g. a {@link WatchCacheCrudDispatcher} for watches that resume from their
     * resourceVersion (or get 410 Gone) as against kube-apiserver.
     */
    public MockKubernetesCluster(String name, KubernetesCrudDispatcher dispatcher) {
        this.name = name;
        this.dispatcher = dispatcher;
        start();
        ServiceEntryCrd.register(client);
    }

    /** Serves again (on the first start's port after a {@link #stop()}); a no-op while serving. */
    public synchronized void start() {
        if (server != null) return;
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), dispatcher, false);
        server.init(InetAddress.getLoopbackAddress(), port);
        port = server.getPort();
        client = server.createClient();
    }

    /** Closes the port; the objects stay for the next {@link #start()}. */
    public synchronized void stop() {
        if (server == null) return;
        client.close();
        server.destroy();
        server = null;
    }

    /** The port the API listens on (the same after a {@link #stop()} and {@link #start()}). */
    public int port() {
        return port;
    }

    public String name() {
        return name;
    }

    /** A client of the running server; a new one after each {@link #start()}. */
    public synchronized KubernetesClient client() {
        return client;
    }

    public String url() {
        return "http://127.0.0.1:" + port;
    }

    /**
     * Writes {@code <dir>/<name>.yaml}, a kubeconfig for this cluster (namespace {@code default}, a bearer token
     * {@code <name>-token}); discovery takes a remote cluster's name from the file name.
     */
    public Path writeKubeconfig(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(name + ".yaml");
        Files.writeString(file, kubeconfig(name, url()));
        return file;
    }

    /** A kubeconfig for a cluster {@code name} at {@code server}: namespace {@code default}, bearer token {@code <name>-token}. */
    public static String kubeconfig(String name, String server) {
        return """
                apiVersion: v1
                kind: Config
                clusters:
                - name: %1$s
                  cluster: {server: "%2$s"}
                contexts:
                - name: %1$s
                  context: {cluster: %1$s, user: %1$s, namespace: default}
                current-context: %1$s
                users:
                - name: %1$s
                  user: {token: %1$s-token}
                """.formatted(name, server);
    }

    @Override
    public void close() {
        stop();
    }
}
