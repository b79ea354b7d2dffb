package io.meshdns.exposure.source;

import io.meshdns.exposure.endpoint.Endpoint;
import java.util.List;
import java.util.Set;

/**
 * What the sources want published.
 *
 * @param erroredResources resource keys ("service/ns/name") whose evaluation hit an invalid annotation:
 *     their valid records are in {@code endpoints}, and the plan never deletes records they own.
 */
public record Desired(List<Endpoint> endpoints, Set<String> erroredResources) {
    public Desired {
        endpoints = List.copyOf(endpoints);
        erroredResources = Set.copyOf(erroredResources);
    }

    public static Desired of(Endpoint... endpoints) {
        return new Desired(List.of(endpoints), Set.of());
    }
}
