package io.meshdns.bench.discovery;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.meshdns.model.Kind;
import io.meshdns.model.ObjectRef;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

/**
 * The generated mesh: Services (ClusterIP, a share of them headless), one EndpointSlice each, spread
 * over namespaces and clusters. Deterministic for a given size and seed, generated at run time (no
 * data is committed). Addresses come from counters, so every ClusterIP and endpoint IP is unique and
 * an answer can only match the change that produced it.
 */
final class Workload {
    static final String ZONE = "svc.cluster.local.";

    /** One service as the harness believes the API holds it; replaced, never mutated. */
    record Svc(int index, String cluster, String namespace, String name, boolean headless, String clusterIp,
               List<String> endpoints) {
        String sliceName() {
            return name + "-s1";
        }

        String fqdn() {
            return name + "." + namespace + "." + ZONE;
        }

        /** What a correct A answer holds: the ClusterIP, or every (ready) endpoint of a headless service. */
        List<String> expectedA() {
            return headless ? List.copyOf(new TreeSet<>(endpoints)) : List.of(clusterIp);
        }

        ObjectRef serviceRef() {
            return new ObjectRef(cluster, Kind.SERVICE, namespace, name);
        }

        ObjectRef sliceRef() {
            return new ObjectRef(cluster, Kind.ENDPOINT_SLICE, namespace, sliceName());
        }

        Service service() {
            String ip = headless ? "None" : clusterIp;
            return new ServiceBuilder().withNewMetadata().withName(name).withNamespace(namespace).addToLabels("app", name).endMetadata()
                    .withNewSpec().withType("ClusterIP").withClusterIP(ip).withClusterIPs(ip).addToSelector("app", name)
                    .addNewPort().withName("http").withPort(80).withProtocol("TCP").endPort().endSpec().build();
        }

        EndpointSlice slice() {
            EndpointSliceBuilder b = new EndpointSliceBuilder().withNewMetadata().withName(sliceName()).withNamespace(namespace)
                    .addToLabels("kubernetes.io/service-name", name).addToLabels("endpointslice.kubernetes.io/managed-by", "endpointslice-controller.k8s.io")
                    .endMetadata().withAddressType("IPv4")
                    .addNewPort().withName("http").withPort(8080).withProtocol("TCP").endPort();
            for (int k = 0; k < endpoints.size(); k++) {
                var e = b.addNewEndpoint().withAddresses(endpoints.get(k)).withNewConditions().withReady(true).withServing(true).withTerminating(false).endConditions()
                        .withNodeName("node-" + (index + k) % 50);
                // StatefulSet-style pods behind headless services have hostnames (one more record each).
                if (headless) e.withHostname(name + "-" + k);
                e.endEndpoint();
            }
            return b.build();
        }

        Svc withClusterIp(String ip) {
            return new Svc(index, cluster, namespace, name, headless, ip, endpoints);
        }

        Svc withEndpoints(List<String> eps) {
            return new Svc(index, cluster, namespace, name, headless, clusterIp, List.copyOf(eps));
        }
    }

    private final List<String> clusters;
    private final int perNamespace;
    private final int headlessPercent;
    private final int namespaces;
    private int nextClusterIp;
    private int nextEndpointIp;
    private int nextIndex;

    Workload(List<String> clusters, int perNamespace, int headlessPercent, int services) {
        this.clusters = List.copyOf(clusters);
        this.perNamespace = perNamespace;
        this.headlessPercent = headlessPercent;
        this.namespaces = Math.max(1, (services + perNamespace - 1) / perNamespace);
    }

    /** The initial services: {@code services} of them holding exactly {@code endpoints} endpoints in all. */
    List<Svc> initial(int services, int endpoints) {
        if (endpoints < services) throw new IllegalArgumentException("--endpoints must be at least --services (one endpoint per service)");
        // 1..9 endpoints per service (mean 5 for 5 per service on average), then nudged to the exact total.
        int[] counts = new int[services];
        long sum = 0;
        for (int i = 0; i < services; i++) {
            counts[i] = 1 + (int) ((i * 7L) % 9);
            sum += counts[i];
        }
        long diff = endpoints - sum;
        for (int i = 0; diff != 0; i = (i + 1) % services) {
            if (diff > 0) {
                counts[i]++;
                diff--;
            } else if (counts[i] > 1) {
                counts[i]--;
                diff++;
            }
        }
        List<Svc> out = new ArrayList<>(services);
        for (int i = 0; i < services; i++) out.add(create(counts[i], i / perNamespace));
        return out;
    }

    /** A new service in an existing namespace (round robin), 1..9 endpoints. */
    Svc next(Random random) {
        return create(1 + random.nextInt(9), nextIndex % namespaces);
    }

    private Svc create(int endpointCount, int namespace) {
        int i = nextIndex++;
        boolean headless = (i % 100) < headlessPercent;
        List<String> eps = new ArrayList<>(endpointCount);
        for (int k = 0; k < endpointCount; k++) eps.add(endpointIp());
        return new Svc(i, clusters.get(i % clusters.size()), "ns-" + namespace, "svc-" + i, headless,
                headless ? null : clusterIp(), eps);
    }

    List<String> namespaceNames() {
        List<String> out = new ArrayList<>(namespaces);
        for (int n = 0; n < namespaces; n++) out.add("ns-" + n);
        return out;
    }

    /** 10.96.0.0/12, Kubernetes' default service range. */
    String clusterIp() {
        return dotted((10 << 24) | (96 << 16), nextClusterIp++, 1 << 20);
    }

    /** 10.128.0.0/9 for pod IPs. */
    String endpointIp() {
        return dotted((10 << 24) | (128 << 16), nextEndpointIp++, 1 << 23);
    }

    private static String dotted(int base, int offset, int size) {
        if (offset + 1 >= size) throw new IllegalStateException("address range exhausted");
        int a = base + offset + 1;
        return ((a >>> 24) & 255) + "." + ((a >>> 16) & 255) + "." + ((a >>> 8) & 255) + "." + (a & 255);
    }
}
