package io.meshdns.it.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.Serialization;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The objects of a kustomization in k8s/, read by following its {@code resources} (files and
 * directories of other kustomizations). Patches and generators are not applied: the unit tests read
 * the base, where all RBAC and workloads are, and the patches as objects of their own. The
 * {@code -Pkube-apiserver} test renders every overlay with kubectl's real kustomize instead.
 */
final class Manifests {
    static final Path ROOT = Path.of(System.getProperty("meshdns.root", "..")).resolve("k8s");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private Manifests() {
    }

    /** The objects a kustomization directory lists, following nested kustomizations. */
    static List<HasMetadata> resources(Path kustomizationDir) {
        List<HasMetadata> out = new ArrayList<>();
        JsonNode k = kustomization(kustomizationDir);
        for (String field : List.of("resources", "bases")) {
            for (JsonNode r : k.path(field)) {
                Path p = kustomizationDir.resolve(r.asText()).normalize();
                if (Files.isDirectory(p)) {
                    out.addAll(resources(p));
                } else {
                    out.addAll(objects(p));
                }
            }
        }
        return out;
    }

    /** The kustomization.yaml of a directory, as a tree. */
    static JsonNode kustomization(Path dir) {
        try {
            return YAML.readTree(dir.resolve("kustomization.yaml").toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every Kubernetes object of one YAML file (multi-document files included). */
    static List<HasMetadata> objects(Path file) {
        List<HasMetadata> out = new ArrayList<>();
        try (InputStream in = Files.newInputStream(file)) {
            Object parsed = Serialization.unmarshal(in);
            if (parsed instanceof List<?> list) {
                list.forEach(o -> out.add((HasMetadata) o));
            } else if (parsed instanceof HasMetadata o) {
                out.add(o);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /** Parses rendered manifests (kubectl kustomize output). */
    static List<HasMetadata> parse(String yaml) {
        Object parsed = Serialization.unmarshal(new java.io.ByteArrayInputStream(yaml.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        List<HasMetadata> out = new ArrayList<>();
        if (parsed instanceof List<?> list) {
            list.forEach(o -> out.add((HasMetadata) o));
        } else if (parsed instanceof HasMetadata o) {
            out.add(o);
        }
        return out;
    }

    static <T extends HasMetadata> T find(List<HasMetadata> objects, Class<T> kind, String name) {
        return objects.stream().filter(kind::isInstance).map(kind::cast)
                .filter(o -> o.getMetadata().getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind.getSimpleName() + " " + name));
    }

    static <T extends HasMetadata> List<T> all(List<HasMetadata> objects, Class<T> kind) {
        return objects.stream().filter(kind::isInstance).map(kind::cast).toList();
    }
}
