package io.meshdns.it.k8s;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hand-written manifests in k8s/ (no generator checks them): every document parses into the
 * Kubernetes kind it claims, and the node-local DaemonSet keeps what a node-local DNS needs.
 */
class ManifestsTest {
    private static final Path K8S = Path.of("..", "k8s");

    @Test
    void everyManifestParsesIntoItsKubernetesKind() throws IOException {
        List<HasMetadata> objects = load();
        assertTrue(objects.size() >= 10, "documents found: " + objects.size());
        for (HasMetadata o : objects) {
            assertNotNull(o.getMetadata().getName(), o.getKind() + " without a name");
            // A typo in apiVersion or kind leaves a generic resource instead of the typed model.
            assertFalse(o instanceof GenericKubernetesResource, "unknown kind " + o.getApiVersion() + "/" + o.getKind()
                    + " " + o.getMetadata().getName());
        }
    }

    @Test
    void theDnsDaemonSetServesUdpAndTcp53WithAHeapThatFitsItsLimit() throws IOException {
        DaemonSet ds = dnsDaemonSet();
        assertTrue(ds.getSpec().getTemplate().getSpec().getHostNetwork(), "node-local: host network");
        Container c = ds.getSpec().getTemplate().getSpec().getContainers().get(0);
        List<String> ports = c.getPorts().stream().map(p -> p.getContainerPort() + "/" + p.getProtocol()).toList();
        assertTrue(ports.containsAll(List.of("53/UDP", "53/TCP")), ports.toString());
        assertTrue(c.getPorts().stream().map(ContainerPort::getName).distinct().count() == c.getPorts().size(), "port names unique");

        long limit = Quantity.getAmountInBytes(c.getResources().getLimits().get("memory")).longValue();
        String jvm = env(c, "JAVA_TOOL_OPTIONS");
        assertNotNull(jvm, "no JAVA_TOOL_OPTIONS: the JVM would take 25% of the limit");
        Matcher m = Pattern.compile("-XX:MaxRAMPercentage=([0-9.]+)").matcher(jvm);
        assertTrue(m.find(), jvm);
        double heapMb = limit * Double.parseDouble(m.group(1)) / 100 / (1 << 20);
        // bench/memory: ~42 MB live heap at 100k records with the memo full, ~75 MB of RSS outside the heap.
        assertTrue(heapMb >= 72, "max heap " + heapMb + " MB");
        assertTrue(limit / (1 << 20) - heapMb >= 96, "room outside the heap: " + (limit / (1 << 20) - heapMb) + " MB");
        assertEquals("2", env(c, "MALLOC_ARENA_MAX"));
    }

    /**
     * A JVM stops at start on an option it does not know (a typo, or one newer than the image's JDK:
     * TrimNativeHeapInterval needs 17.0.9): the DaemonSet's flags must start the JDK the tests run on.
     */
    @Test
    void theDaemonSetsJvmFlagsStartAJvm() throws Exception {
        String flags = env(dnsDaemonSet().getSpec().getTemplate().getSpec().getContainers().get(0), "JAVA_TOOL_OPTIONS");
        assertNotNull(flags, "no JAVA_TOOL_OPTIONS");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(flags.trim().split("\\s+")));
        command.add("-version");
        Process java = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(java.getInputStream().readAllBytes());
        assertEquals(0, java.waitFor(), command + "\n" + output);
    }

    private static DaemonSet dnsDaemonSet() throws IOException {
        return load().stream().filter(DaemonSet.class::isInstance).map(DaemonSet.class::cast)
                .filter(d -> d.getMetadata().getName().equals("dns-service")).findFirst().orElseThrow();
    }

    /** The value of the container's environment variable {@code name}, or null. */
    private static String env(Container c, String name) {
        return c.getEnv().stream().filter(e -> e.getName().equals(name)).map(EnvVar::getValue).findFirst().orElse(null);
    }

    private static List<HasMetadata> load() throws IOException {
        List<HasMetadata> objects = new ArrayList<>();
        try (Stream<Path> files = Files.walk(K8S)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList()) {
                try (InputStream in = Files.newInputStream(f)) {
                    Object parsed = Serialization.unmarshal(in);
                    if (parsed instanceof List<?> list) {
                        list.forEach(o -> objects.add((HasMetadata) o));
                    } else if (parsed instanceof HasMetadata o) {
                        objects.add(o);
                    }
                }
            }
        }
        return objects;
    }
}
