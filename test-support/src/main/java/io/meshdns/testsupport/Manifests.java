package io.meshdns.testsupport;

/**
 * Kubernetes manifest text for the tests that hand discovery a folder of YAML clusters (its manifest source), so
 * the Namespace, Service and EndpointSlice documents every such test needs are written once. Plain text, no
 * fabric8: edge's tests get no Kubernetes jars. Whatever a test varies beyond these (endpoints, annotations) it
 * appends or passes in as YAML of its own.
 */
public final class Manifests {
    private Manifests() {
    }

    /** The documents as one multi-document YAML file. */
    public static String join(String... documents) {
        return String.join("---\n", documents);
    }

    public static String namespace(String name) {
        return """
                apiVersion: v1
                kind: Namespace
                metadata: {name: %s}
                """.formatted(name);
    }

    /** A Service with one TCP port; {@code clusterIp} {@code None} makes it headless. */
    public static String service(String namespace, String name, String clusterIp, String portName, int port) {
        return """
                apiVersion: v1
                kind: Service
                metadata: {name: %s, namespace: %s}
                spec: {clusterIP: %s, ports: [{name: %s, port: %d, protocol: TCP}]}
                """.formatted(name, namespace, clusterIp, portName, port);
    }

    /**
     * An IPv4 EndpointSlice of {@code service} with one TCP port; {@code rest} is the YAML after it at the top
     * level (its {@code endpoints}, and anything else the test needs there).
     */
    public static String endpointSlice(String namespace, String service, String slice, String portName, int port, String rest) {
        return endpointSlice(namespace, service, slice, "", portName, port, rest);
    }

    /** The same with annotations, {@code annotations} the flow-style map's entries, e.g. {@code a: "b"}. */
    public static String endpointSlice(String namespace, String service, String slice, String annotations,
            String portName, int port, String rest) {
        return """
                apiVersion: discovery.k8s.io/v1
                kind: EndpointSlice
                metadata:
                  name: %s
                  namespace: %s
                  labels: {kubernetes.io/service-name: %s}
                %saddressType: IPv4
                ports: [{name: %s, port: %d, protocol: TCP}]
                """.formatted(slice, namespace, service, annotations.isEmpty() ? "" : "  annotations: {" + annotations + "}\n",
                portName, port) + rest;
    }
}
