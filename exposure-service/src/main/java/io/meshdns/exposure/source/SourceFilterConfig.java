package io.meshdns.exposure.source;

import io.smallrye.config.ConfigMapping;
import java.util.Optional;

/** ExternalDNS's --namespace, --label-filter, --annotation-filter: which source objects are read at all. */
@ConfigMapping(prefix = "meshdns.exposure")
public interface SourceFilterConfig {

    /** Only source objects in this namespace (all when unset). */
    Optional<String> namespace();

    /** A label selector (k=v, k!=v, k, !k; comma = and) every source object must match. */
    Optional<String> labelFilter();

    /** The same syntax over the objects' annotations. */
    Optional<String> annotationFilter();
}
