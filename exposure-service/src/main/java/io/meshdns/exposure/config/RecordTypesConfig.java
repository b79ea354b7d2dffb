package io.meshdns.exposure.config;

import io.meshdns.exposure.plan.RecordTypeFilter;
import io.smallrye.config.ConfigMapping;
import java.util.List;
import java.util.Optional;

/**
 * {@code meshdns.exposure.managed-record-types} / {@code .exclude-record-types}: ExternalDNS's
 * {@code --managed-record-types} and {@code --exclude-record-types}. Unset = every type meshdns
 * plans ({@link RecordTypeFilter#SUPPORTED}).
 */
@ConfigMapping(prefix = "meshdns.exposure")
public interface RecordTypesConfig {

    Optional<List<String>> managedRecordTypes();

    Optional<List<String>> excludeRecordTypes();

    /** The filter; an unknown type fails naming its key. */
    default RecordTypeFilter filter() {
        return RecordTypeFilter.of(managedRecordTypes().orElse(List.of()), excludeRecordTypes().orElse(List.of()));
    }
}
