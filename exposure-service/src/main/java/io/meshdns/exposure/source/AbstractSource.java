package io.meshdns.exposure.source;

import java.util.List;

/**
 * A {@link Source} whose name and kinds are fixed when it is built, as every shipped source's are: given once, to the
 * constructor, they leave each source class with only its translation.
 */
public abstract class AbstractSource implements Source {

    private final String name;
    private final WatchedKind kind;
    private final List<WatchedKind> context;

    protected AbstractSource(String name, WatchedKind kind, List<WatchedKind> context) {
        this.name = name;
        this.kind = kind;
        this.context = List.copyOf(context);
    }

    protected AbstractSource(String name, WatchedKind kind, WatchedKind... context) {
        this(name, kind, List.of(context));
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final WatchedKind kind() {
        return kind;
    }

    @Override
    public final List<WatchedKind> context() {
        return context;
    }
}
