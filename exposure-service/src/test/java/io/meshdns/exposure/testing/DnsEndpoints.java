package io.meshdns.exposure.testing;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * DNSEndpoints (externaldns.k8s.io/v1alpha1) as the tests write them: a namespace, a name and the entries, each one
 * ExternalDNS endpoint in YAML flow style, e.g. {@code {dnsName: a.example.org, recordType: A, targets: [192.0.2.1]}}.
 */
public final class DnsEndpoints {

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private DnsEndpoints() {
    }

    /** The manifest, as a manifest directory or {@code kubectl apply} would hold it. */
    public static String manifest(String namespace, String name, String... entries) {
        var yaml = new StringBuilder("""
                apiVersion: externaldns.k8s.io/v1alpha1
                kind: DNSEndpoint
                metadata: {name: %s, namespace: %s}
                spec:
                  endpoints:
                """.formatted(name, namespace));
        for (String entry : entries) yaml.append("  - ").append(entry).append('\n');
        return yaml.toString();
    }

    /** The same object, to create in a cluster or hand to a source. */
    public static GenericKubernetesResource object(String namespace, String name, String... entries) {
        return (GenericKubernetesResource) SERIALIZATION.unmarshal(manifest(namespace, name, entries));
    }
}
