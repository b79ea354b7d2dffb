package io.meshdns.discovery.vip;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * The in-cluster store: one ConfigMap (default {@code meshdns-vips}) in discovery's namespace, with the
 * whole table under the data key {@value #DATA_KEY}. Host names cannot be ConfigMap keys (a wildcard or
 * a long name may not fit the key syntax), hence one text value. About 50 bytes per host: the 1 MiB
 * ConfigMap limit holds some 20k hosts.
 */
public final class ConfigMapVipStore implements VipStore {
    public static final String DATA_KEY = "vips";

    private final KubernetesClient client;
    private final String namespace;
    private final String name;

    public ConfigMapVipStore(KubernetesClient client, String namespace, String name) {
        this.client = client;
        this.namespace = namespace;
        this.name = name;
    }

    @Override
    public Map<String, List<String>> load() throws IOException {
        try {
            ConfigMap cm = client.configMaps().inNamespace(namespace).withName(name).get();
            if (cm == null || cm.getData() == null) return Map.of();
            return VipStore.decode(cm.getData().get(DATA_KEY));
        } catch (KubernetesClientException e) {
            throw new IOException("cannot read ConfigMap " + namespace + "/" + name + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void save(Map<String, List<String>> allocations) throws IOException {
        String text = VipStore.encode(allocations);
        try {
            var resource = client.configMaps().inNamespace(namespace).withName(name);
            ConfigMap existing = resource.get();
            if (existing == null) {
                client.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder()
                        .withNewMetadata().withName(name).withNamespace(namespace)
                        .addToLabels("app.kubernetes.io/managed-by", "meshdns-discovery").endMetadata()
                        .addToData(DATA_KEY, text).build()).create();
            } else if (existing.getData() == null || !text.equals(existing.getData().get(DATA_KEY))) {
                resource.edit(cm -> new ConfigMapBuilder(cm).addToData(DATA_KEY, text).build());
            }
        } catch (KubernetesClientException e) {
            throw new IOException("cannot write ConfigMap " + namespace + "/" + name + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String describe() {
        return "ConfigMap " + namespace + "/" + name;
    }
}
