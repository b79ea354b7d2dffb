package io.meshdns.exposure.provider;

import java.util.List;
import java.util.stream.Collectors;

/** Picks the factory {@code meshdns.exposure.provider} names among the registered ones. */
public final class Providers {

    private Providers() {
    }

    public static ProviderFactory named(List<ProviderFactory> factories, String name) {
        String n = name.trim();
        return factories.stream().filter(f -> f.name().equals(n)).findFirst().orElseThrow(() -> new IllegalArgumentException(
                "meshdns.exposure.provider: '" + name + "' is not one of "
                        + factories.stream().map(ProviderFactory::name).sorted().collect(Collectors.joining(", "))));
    }

    public static List<Provider> create(List<ProviderFactory> factories, String name, ProviderContext context) {
        return named(factories, name).create(context);
    }
}
