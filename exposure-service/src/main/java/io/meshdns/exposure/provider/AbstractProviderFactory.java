package io.meshdns.exposure.provider;

import java.util.Optional;

/**
 * A {@link ProviderFactory} whose name and own {@code @ConfigMapping} are given once, to the constructor, as every
 * shipped factory's are: each factory class is left with only its checks and what it builds. Its own keys are
 * {@code meshdns.exposure.<name>.*}, so a failure message names one through {@link #key} instead of spelling the
 * prefix out again.
 *
 * @param <C> the factory's own mapping, under {@code meshdns.exposure.<name>}
 */
public abstract class AbstractProviderFactory<C> implements ProviderFactory {

    private final String name;
    /** The factory's own mapping, under {@code meshdns.exposure.<name>}. */
    protected final C config;

    protected AbstractProviderFactory(String name, C config) {
        this.name = name;
        this.config = config;
    }

    @Override
    public final String name() {
        return name;
    }

    /** One of this provider's own keys in full: {@code key("server")} of pdns is {@code meshdns.exposure.pdns.server}. */
    protected final String key(String leaf) {
        return "meshdns.exposure." + name + "." + leaf;
    }

    /** {@link ProviderKeys#required} for one of this provider's own keys. */
    protected final String required(String leaf, Optional<String> value) {
        return ProviderKeys.required(key(leaf), value, name);
    }
}
