package io.meshdns.exposure.source;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * What one pass hands every {@link Source}: the settings and all objects read, by kind ({@link WatchedKind#key()}). {@link #index} keeps
 * one derived table per pass (a Service's EndpointSlices by service) so a source builds it once, not per object.
 */
public final class SourceContext {

    private final SourceSettings settings;
    private final Map<String, List<HasMetadata>> objectsByKind;
    private final Map<String, Object> indexes = new HashMap<>();
    private final SourceFilter filter;

    public SourceContext(SourceSettings settings, Map<String, List<HasMetadata>> objectsByKind) {
        this(settings, objectsByKind, SourceFilter.ALL);
    }

    /**
     * {@code filter}: the source filter of the pass, for the sources that look objects up the way ExternalDNS's informers
     * would (its namespace, its annotation selector).
     */
    public SourceContext(SourceSettings settings, Map<String, List<HasMetadata>> objectsByKind, SourceFilter filter) {
        this.settings = settings;
        this.objectsByKind = Map.copyOf(objectsByKind);
        this.filter = filter;
    }

    /**
     * meshdns.exposure.namespace (ExternalDNS's --namespace), when set. It already narrows every source's own objects; a source
     * whose ExternalDNS counterpart also reads a context kind through that namespace (Istio Gateway's Services and Ingresses)
     * narrows those with it.
     */
    public Optional<String> namespace() {
        return filter.namespace();
    }

    /** Whether an object of a context kind is in meshdns.exposure.namespace (always, when unset). */
    public boolean inNamespace(HasMetadata o) {
        return filter.namespace().map(n -> n.equals(o.getMetadata().getNamespace())).orElse(true);
    }

    /**
     * Whether a context object's annotations match meshdns.exposure.annotation-filter (ExternalDNS's --annotation-filter),
     * for the context kinds ExternalDNS reads through that filter too (ListenerSets).
     */
    public boolean annotationsMatch(HasMetadata o) {
        return filter.annotations().matches(o.getMetadata().getAnnotations());
    }

    public SourceSettings settings() {
        return settings;
    }

    /** The objects of one kind (empty when not read or none exist), already in a stable order. */
    @SuppressWarnings("unchecked")
    public <T extends HasMetadata> List<T> objects(WatchedKind kind) {
        return (List<T>) (List<?>) objectsByKind.getOrDefault(kind.key(), List.of());
    }

    /** A table derived from this pass's objects, built once per pass under {@code key}. */
    @SuppressWarnings("unchecked")
    public <T> T index(String key, Function<SourceContext, T> build) {
        Object existing = indexes.get(key);
        if (existing == null) {
            existing = build.apply(this);
            indexes.put(key, existing);
        }
        return (T) existing;
    }
}
