package io.meshdns.exposure.registry;

import io.meshdns.exposure.provider.Provider;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * One registry kind, selected by {@code meshdns.exposure.registry=<name>} (ExternalDNS's
 * {@code --registry}). Being a CDI bean implementing this interface is the one way a registry is
 * registered, as for {@link io.meshdns.exposure.provider.ProviderFactory}.
 */
public interface RegistryFactory {

    /** What every registry is built from: the provider target and the ownership settings. */
    record Context(Provider provider, String ownerId, TxtNameMapper names, long claimTtl, Set<String> adoptOwners, ClaimCodec claims) {

        /** Plain claims. */
        public Context(Provider provider, String ownerId, TxtNameMapper names, long claimTtl, Set<String> adoptOwners) {
            this(provider, ownerId, names, claimTtl, adoptOwners, ClaimCodec.PLAIN);
        }
    }

    String name();

    Registry create(Context context);

    /** The factory {@code meshdns.exposure.registry} names; an unknown name fails naming the key. */
    static RegistryFactory named(List<RegistryFactory> factories, String name) {
        String n = name.trim();
        return factories.stream().filter(f -> f.name().equals(n)).findFirst().orElseThrow(() -> new IllegalArgumentException(
                "meshdns.exposure.registry: '" + name + "' is not one of "
                        + factories.stream().map(RegistryFactory::name).sorted().collect(Collectors.joining(", "))));
    }
}
