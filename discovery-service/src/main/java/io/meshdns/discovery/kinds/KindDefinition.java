package io.meshdns.discovery.kinds;

import io.meshdns.collect.Collected;

/**
 * One Kubernetes kind discovery reads, in one class of this package: its row of the kind table (API versions,
 * resource, informer, switch) and, beside it, its pure translation. {@link DiscoveryKinds} collects every class that
 * implements this (javac lists them at compile time: {@code KindDefinitionImplementations}, written by
 * {@link Collected}'s processor), so a new kind is its class here and nothing else in discovery. Shared translation
 * helpers are in {@code translate/}.
 */
@Collected
public interface KindDefinition {
    /** This kind's row; the same on every call. */
    DiscoveryKind row();
}
