package io.meshdns.discovery.api;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The discovery a watch test profile starts from: no local cluster, cluster {@code east} read from a manifest
 * folder holding one Service (shop/web, 10.96.0.10), VIPs in the temp dir, the given shared token. A profile adds
 * the keys its scenario is about (and files of its own under {@link #dir()}).
 */
record EastManifestProfile(Path dir, Map<String, String> config) {

    static EastManifestProfile create(String tempDirPrefix, String token) {
        try {
            Path dir = Files.createTempDirectory(tempDirPrefix);
            Path manifests = Files.createDirectories(dir.resolve("manifests/east"));
            Files.writeString(manifests.resolve("web.yaml"),
                    "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\nspec: {clusterIP: 10.96.0.10}\n");
            return new EastManifestProfile(dir, Map.of(
                    "meshdns.discovery.enabled-local-cluster", "false",
                    "meshdns.discovery.cluster-name", "east",
                    "meshdns.discovery.manifest-dirs", manifests.getParent().toString(),
                    "meshdns.discovery.vip-file", dir.resolve("vips.txt").toString(),
                    "meshdns.discovery.shared-token", token));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** These config overrides plus {@code more}. */
    Map<String, String> with(Map<String, String> more) {
        Map<String, String> all = new HashMap<>(config);
        all.putAll(more);
        return all;
    }
}
