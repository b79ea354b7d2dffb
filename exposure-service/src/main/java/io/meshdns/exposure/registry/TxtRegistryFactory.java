package io.meshdns.exposure.registry;

import jakarta.inject.Singleton;

/** {@code meshdns.exposure.registry=txt} (the default): ExternalDNS's TXT ownership records. */
@Singleton
public final class TxtRegistryFactory implements RegistryFactory {

    @Override
    public String name() {
        return "txt";
    }

    @Override
    public Registry create(Context c) {
        return new TxtRegistry(c.provider(), c.ownerId(), c.names(), c.claimTtl(), c.adoptOwners(), c.claims());
    }
}
