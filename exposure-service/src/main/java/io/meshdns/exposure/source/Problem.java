package io.meshdns.exposure.source;

/**
 * Something wrong with one Kubernetes object (an invalid annotation, an unusable DNSEndpoint entry).
 * It becomes a log line and a Kubernetes Event on the object; its resource counts as errored, so
 * the plan keeps that object's current records.
 */
public record Problem(String kind, String apiVersion, String namespace, String name, String uid, String reason,
                      String message) {

    public static final String INVALID_ANNOTATION = "InvalidAnnotation";
    public static final String INVALID_ENDPOINT = "InvalidEndpoint";

    public String resourceKey() {
        return SourceNames.resourceKey(kind, namespace, name);
    }
}
