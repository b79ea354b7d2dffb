package io.meshdns.discovery.vip;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The allocation table survives a restart through a ConfigMap on the fabric8 CRUD test server, and through a file. */
class ConfigMapVipStoreTest {
    private static KubernetesMockServer server;
    private static KubernetesClient client;

    @BeforeAll
    static void start() {
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
        server.init();
        client = server.createClient();
    }

    @AfterAll
    static void stop() {
        client.close();
        server.destroy();
    }

    private static VipTable table() {
        return new VipTable(List.of(VipRange.parse("240.240.0.0/16"), VipRange.parse("2001:2::/48")));
    }

    @Test
    void writtenToTheConfigMapAndReloadedByANewAllocator() throws Exception {
        VipStore store = new ConfigMapVipStore(client, "meshdns", "meshdns-vips");
        assertTrue(store.load().isEmpty(), "no ConfigMap yet");

        VipTable first = table();
        first.allocate("legacy.service.entry");
        first.allocate("billing.service.entry");
        store.save(first.allocations());

        ConfigMap cm = client.configMaps().inNamespace("meshdns").withName("meshdns-vips").get();
        assertNotNull(cm);
        String text = cm.getData().get(ConfigMapVipStore.DATA_KEY);
        assertTrue(text.contains("legacy.service.entry " + first.allocations().get("legacy.service.entry").get(0)), text);

        // A later save (a host freed, one added) edits the same ConfigMap.
        first.retainOnly(List.of("legacy.service.entry"));
        first.allocate("new.service.entry");
        store.save(first.allocations());

        VipTable restarted = table();
        restarted.restore(new ConfigMapVipStore(client, "meshdns", "meshdns-vips").load());
        assertEquals(first.allocations(), restarted.allocations());
        assertEquals(first.allocations().get("new.service.entry"), restarted.allocate("new.service.entry"));
    }

    @Test
    void fileStoreRoundTrip(@TempDir Path dir) throws Exception {
        VipStore store = new FileVipStore(dir.resolve("sub/vips.txt"));
        VipTable first = table();
        first.allocate("*.ignored.example".substring(2));
        first.allocate("edge.service.entry");
        store.save(first.allocations());
        VipTable restarted = table();
        restarted.restore(store.load());
        assertEquals(first.allocations(), restarted.allocations());
        Map<String, List<String>> loaded = store.load();
        assertEquals(2, loaded.get("edge.service.entry").size());
    }

    /** Two discovery replicas sharing the ConfigMap: neither overwrites the other, and an address is never given twice. */
    @Test
    void twoReplicasSharingTheConfigMapNeverOverwriteEachOther() throws Exception {
        VipStore a = new ConfigMapVipStore(client, "replicas", "meshdns-vips");
        VipStore b = new ConfigMapVipStore(client, "replicas", "meshdns-vips");
        assertTrue(a.load().isEmpty());
        assertTrue(b.load().isEmpty());
        // Both allocate concurrently from the same empty table: the hash choice gives both the same first address.
        Map<String, List<String>> fromA = Map.of("alpha.service.entry", List.of("240.240.0.1"));
        Map<String, List<String>> fromB = Map.of("beta.service.entry", List.of("240.240.0.2"),
                "gamma.service.entry", List.of("240.240.0.1"));
        assertEquals(fromA, a.saveMerging(fromA));
        Map<String, List<String>> storedByB = b.saveMerging(fromB);
        assertEquals(List.of("240.240.0.1"), storedByB.get("alpha.service.entry"), "A's allocation kept");
        assertEquals(List.of("240.240.0.2"), storedByB.get("beta.service.entry"), "B's own host added");
        assertEquals(null, storedByB.get("gamma.service.entry"), "an address A holds is not given to another host");
        Map<String, List<String>> inCluster = VipStore.decode(client.configMaps().inNamespace("replicas").withName("meshdns-vips")
                .get().getData().get(ConfigMapVipStore.DATA_KEY));
        assertEquals(storedByB, inCluster);
        // A writes again from its stale view: the CAS makes it merge instead of dropping B's host.
        Map<String, List<String>> storedByA = a.saveMerging(Map.of("alpha.service.entry", List.of("240.240.0.1"),
                "delta.service.entry", List.of("240.240.0.3")));
        assertEquals(List.of("240.240.0.2"), storedByA.get("beta.service.entry"), "B's host survives A's next write");
        assertEquals(List.of("240.240.0.3"), storedByA.get("delta.service.entry"));
    }
}
