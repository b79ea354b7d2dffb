package io.meshdns.discovery.it;

import io.meshdns.testsupport.MockKubernetesCluster;
import io.meshdns.testsupport.ServiceEntryCrd;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.kubernetes.client.KubernetesServer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A second fabric8 CRUD test server standing for the remote cluster "west", announced to discovery
 * through a kubeconfig file in meshdns.discovery.remote-kubeconfig-dir. Also holds discovery's
 * test configuration (one profile, one boot).
 */
public class WestCluster implements QuarkusTestResourceLifecycleManager {
    static final String TOKEN = "test-token";
    static volatile KubernetesServer server;
    static volatile Path kubeconfigDir;
    static volatile int port;

    @Override
    public Map<String, String> start() {
        try {
            kubeconfigDir = Files.createTempDirectory("meshdns-remotes");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        startServer(0);
        writeKubeconfig();
        return Map.ofEntries(
                Map.entry("meshdns.discovery.cluster-name", "east"),
                Map.entry("meshdns.discovery.remote-kubeconfig-dir", kubeconfigDir.toString()),
                Map.entry("meshdns.discovery.remote-kubeconfig-rescan", "300ms"),
                Map.entry("meshdns.discovery.shared-token", TOKEN),
                Map.entry("meshdns.discovery.stale-after", "3s"),
                Map.entry("meshdns.discovery.batch-window", "50ms"),
                Map.entry("meshdns.discovery.reconcile-interval", "5s"),
                Map.entry("meshdns.discovery.initial-sync-timeout", "20s"),
                Map.entry("meshdns.discovery.heartbeat-interval", "1s"),
                Map.entry("meshdns.discovery.history-size", "50"),
                Map.entry("meshdns.discovery.crd-retry-interval", "2s"),
                Map.entry("meshdns.discovery.watch-remote-secrets", "true"));
    }

    static void startServer(int onPort) {
        KubernetesServer s = new KubernetesServer(false, true, InetAddress.getLoopbackAddress(), onPort, List.of());
        s.before();
        ServiceEntryCrd.register(s.getClient());
        port = s.getKubernetesMockServer().getPort();
        server = s;
    }

    static void writeKubeconfig() {
        try {
            Files.writeString(kubeconfigDir.resolve("west.yaml"), kubeconfigText());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String kubeconfigText() {
        return MockKubernetesCluster.kubeconfig("west", "http://127.0.0.1:" + port);
    }

    @Override
    public void stop() {
        if (server != null) server.after();
    }
}
