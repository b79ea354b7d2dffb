package io.meshdns.exposure.provider;

import java.util.List;

/**
 * One provider kind, selected by {@code meshdns.exposure.provider=<name>}. A factory is a CDI bean
 * that gets its own {@code @ConfigMapping} (under {@code meshdns.exposure.<name>.*}) injected,
 * validates it when asked to create (a bad value throws IllegalArgumentException whose message
 * starts with the key) and builds one provider per target. Being a bean implementing this
 * interface is the one way a provider is registered.
 */
public interface ProviderFactory {

    String name();

    List<Provider> create(ProviderContext context);
}
