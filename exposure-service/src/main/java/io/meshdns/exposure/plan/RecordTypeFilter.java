package io.meshdns.exposure.plan;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The record types the plan manages (ExternalDNS's {@code --managed-record-types} minus
 * {@code --exclude-record-types}): a type outside the set is invisible on both sides, so it is never
 * created, changed or deleted, whoever owns it. Ownership TXT records are the registry's and are not
 * affected: excluding TXT stops managing TXT <em>data</em> records only.
 */
public record RecordTypeFilter(Set<String> managed) {

    /** Every type the plan can manage, and meshdns's default (ExternalDNS's default is A, AAAA, CNAME). */
    public static final Set<String> SUPPORTED = Set.of("A", "AAAA", "CNAME", "SRV", "TXT", "NS", "MX", "PTR");

    public static final RecordTypeFilter ALL = new RecordTypeFilter(SUPPORTED);

    public RecordTypeFilter {
        managed = Set.copyOf(managed);
    }

    public boolean accepts(String recordType) {
        return managed.contains(recordType);
    }

    /**
     * The filter from the two settings; an unknown type fails naming the key.
     *
     * @param managedTypes empty = {@link #SUPPORTED}
     */
    public static RecordTypeFilter of(List<String> managedTypes, List<String> excludedTypes) {
        var managed = new TreeSet<String>();
        if (managedTypes.isEmpty()) {
            managed.addAll(SUPPORTED);
        } else {
            managed.addAll(types("meshdns.exposure.managed-record-types", managedTypes));
        }
        managed.removeAll(types("meshdns.exposure.exclude-record-types", excludedTypes));
        return new RecordTypeFilter(managed);
    }

    private static Set<String> types(String key, List<String> values) {
        var out = new TreeSet<String>();
        for (String v : values) {
            String t = v.trim().toUpperCase(Locale.ROOT);
            if (t.isEmpty()) continue;
            if (!SUPPORTED.contains(t)) {
                throw new IllegalArgumentException(key + ": unknown record type '" + v.trim() + "' (one of " + new TreeSet<>(SUPPORTED) + ")");
            }
            out.add(t);
        }
        return out;
    }

    @Override
    public String toString() {
        return String.join(",", new TreeSet<>(managed));
    }
}
