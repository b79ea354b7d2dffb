package io.meshdns.exposure.config;

import io.meshdns.exposure.plan.TargetNetFilter;
import io.smallrye.config.ConfigMapping;
import java.util.List;
import java.util.Optional;

/**
 * {@code meshdns.exposure.target-net-filter} / {@code .exclude-target-net}: ExternalDNS's
 * {@code --target-net-filter} and {@code --exclude-target-net} (comma lists of networks).
 */
@ConfigMapping(prefix = "meshdns.exposure")
public interface TargetNetsConfig {

    Optional<List<String>> targetNetFilter();

    Optional<List<String>> excludeTargetNet();

    /** The filter; a value that is not a network fails naming its key. */
    default TargetNetFilter filter() {
        return TargetNetFilter.of(targetNetFilter().orElse(List.of()), excludeTargetNet().orElse(List.of()));
    }
}
