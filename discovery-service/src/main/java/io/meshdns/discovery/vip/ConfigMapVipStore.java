package io.meshdns.discovery.vip;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The in-cluster store: one ConfigMap (default {@code meshdns-vips}) in discovery's namespace, with the
 * whole table under the data key {@value #DATA_KEY}. Host names cannot be ConfigMap keys (a wildcard or
 * a long name may not fit the key syntax), hence one text value. About 50 bytes per host: the 1 MiB
 * ConfigMap limit holds some 20k hosts.
 *
 * <p>Several discovery replicas may share it. Every write is a compare-and-swap on the ConfigMap's
 * {@code resourceVersion}: {@link #saveMerging} writes only over the version it last read or wrote;
 * when another replica wrote in between, it reads that table, merges (the other replica's hosts and
 * addresses win) and tries again, so no replica's allocations are ever overwritten.
 */
public final class ConfigMapVipStore implements VipStore {
    public static final String DATA_KEY = "vips";

    private final KubernetesClient client;
    private final String namespace;
    private final String name;
    private String lastResourceVersion;
    private static final int CAS_ATTEMPTS = 8;

    public ConfigMapVipStore(KubernetesClient client, String namespace, String name) {
        this.client = client;
        this.namespace = namespace;
        this.name = name;
    }

    @Override
    public Map<String, List<String>> load() throws IOException {
        try {
            ConfigMap cm = client.configMaps().inNamespace(namespace).withName(name).get();
            synchronized (this) {
                lastResourceVersion = cm == null ? null : cm.getMetadata().getResourceVersion();
            }
            if (cm == null || cm.getData() == null) return Map.of();
            return VipStore.decode(cm.getData().get(DATA_KEY));
        } catch (KubernetesClientException e) {
            throw new IOException("cannot read ConfigMap " + namespace + "/" + name + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void save(Map<String, List<String>> allocations) throws IOException {
        saveMerging(allocations);
    }

    @Override
    public synchronized Map<String, List<String>> saveMerging(Map<String, List<String>> allocations) throws IOException {
        Map<String, List<String>> wanted = allocations;
        for (int attempt = 1; attempt <= CAS_ATTEMPTS; attempt++) {
            try {
                var resource = client.configMaps().inNamespace(namespace).withName(name);
                ConfigMap existing = resource.get();
                String version = existing == null ? null : existing.getMetadata().getResourceVersion();
                if (existing != null && !version.equals(lastResourceVersion)) {
                    // Another replica wrote since we last read or wrote: keep what it stored.
                    Map<String, List<String>> theirs = existing.getData() == null ? Map.of() : VipStore.decode(existing.getData().get(DATA_KEY));
                    wanted = VipStore.merge(theirs, wanted);
                }
                String text = VipStore.encode(wanted);
                if (existing == null) {
                    ConfigMap created = client.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder()
                            .withNewMetadata().withName(name).withNamespace(namespace)
                            .addToLabels("app.kubernetes.io/managed-by", "meshdns-discovery").endMetadata()
                            .addToData(DATA_KEY, text).build()).create();
                    lastResourceVersion = created.getMetadata().getResourceVersion();
                } else if (existing.getData() == null || !text.equals(existing.getData().get(DATA_KEY))) {
                    ConfigMap next = new ConfigMapBuilder(existing).addToData(DATA_KEY, text).build();
                    // update() sends the resourceVersion read above: the API server refuses it (409) if it moved.
                    ConfigMap written = client.configMaps().inNamespace(namespace).resource(next).update();
                    lastResourceVersion = written.getMetadata().getResourceVersion();
                } else {
                    lastResourceVersion = version;
                }
                return wanted;
            } catch (KubernetesClientException e) {
                if ((e.getCode() == 409) && attempt < CAS_ATTEMPTS) {
                    lastResourceVersion = "conflict"; // forces a re-read and merge
                    continue;
                }
                throw new IOException("cannot write ConfigMap " + namespace + "/" + name + ": " + e.getMessage(), e);
            }
        }
        throw new IOException("cannot write ConfigMap " + namespace + "/" + name + ": still conflicting after " + CAS_ATTEMPTS + " attempts");
    }

    /**
     * Follows the ConfigMap (an informer on it alone): {@code onTable} gets the stored table after every add and
     * update. A deleted ConfigMap changes nothing: the leader writes it again.
     */
    public SharedIndexInformer<ConfigMap> follow(Consumer<Map<String, List<String>>> onTable) {
        return client.configMaps().inNamespace(namespace).withName(name).inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(ConfigMap cm) {
                onTable.accept(cm.getData() == null ? Map.of() : VipStore.decode(cm.getData().get(DATA_KEY)));
            }

            @Override
            public void onUpdate(ConfigMap before, ConfigMap cm) {
                onAdd(cm);
            }

            @Override
            public void onDelete(ConfigMap cm, boolean finalStateUnknown) {
            }
        }, 0);
    }

    @Override
    public String describe() {
        return "ConfigMap " + namespace + "/" + name;
    }
}
