package io.meshdns.dns.kubernetes;

import org.xbill.DNS.Name;
import org.xbill.DNS.Record;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The compiled records, kept per contributor (one service name, one pod, one ServiceEntry, ...) and
 * indexed by zone and owner. Replacing one contributor's records tells exactly which owners changed,
 * which is what lets a catalog delta become a snapshot patch instead of a rebuild. Several contributors
 * may share an owner (two ServiceEntries naming one host, a PTR for an IP two services use): an owner's
 * records are the concatenation of its contributors', in the order they first contributed.
 *
 * <p>Zone keys are the compiler's zone origins; the non-authoritative overlay uses the key null.
 */
final class Contributions {
    /** One record and the zone (key) it was emitted into. */
    record Emitted(Name zone, Record record) {
    }

    private final Map<String, List<Emitted>> byContributor = new HashMap<>();
    private final Map<Name, Map<Name, Map<String, List<Record>>>> byZone = new HashMap<>();

    /**
     * Makes {@code records} the whole output of {@code contributor} (empty: it contributes nothing) and adds
     * every owner whose records may have changed to {@code touched} (zone key → owners).
     */
    void replace(String contributor, List<Emitted> records, Map<Name, Set<Name>> touched) {
        List<Emitted> old = records.isEmpty() ? byContributor.remove(contributor) : byContributor.put(contributor, List.copyOf(records));
        if (old != null) {
            for (Emitted e : old) {
                Map<Name, Map<String, List<Record>>> owners = byZone.get(e.zone());
                Map<String, List<Record>> parts = owners == null ? null : owners.get(e.record().getName());
                if (parts == null || parts.remove(contributor) == null) continue; // several records of one owner
                if (parts.isEmpty()) owners.remove(e.record().getName());
                touched.computeIfAbsent(e.zone(), z -> new LinkedHashSet<>()).add(e.record().getName());
            }
        }
        for (Emitted e : records) {
            Map<String, List<Record>> parts = byZone.computeIfAbsent(e.zone(), z -> new LinkedHashMap<>())
                    .computeIfAbsent(e.record().getName(), n -> new LinkedHashMap<>());
            parts.computeIfAbsent(contributor, c -> new ArrayList<>(2)).add(e.record());
            touched.computeIfAbsent(e.zone(), z -> new LinkedHashSet<>()).add(e.record().getName());
        }
    }

    /** Every record of {@code owner} in zone {@code zone}, from every contributor. */
    List<Record> at(Name zone, Name owner) {
        Map<Name, Map<String, List<Record>>> owners = byZone.get(zone);
        Map<String, List<Record>> parts = owners == null ? null : owners.get(owner);
        if (parts == null) return List.of();
        if (parts.size() == 1) return parts.values().iterator().next();
        List<Record> all = new ArrayList<>();
        parts.values().forEach(all::addAll);
        return all;
    }

    /** Every record in zone {@code zone}, owner by owner. */
    List<Record> all(Name zone) {
        Map<Name, Map<String, List<Record>>> owners = byZone.get(zone);
        if (owners == null) return List.of();
        List<Record> out = new ArrayList<>();
        for (Map<String, List<Record>> parts : owners.values()) parts.values().forEach(out::addAll);
        return out;
    }

    /** The owners of zone {@code zone}. */
    Set<Name> owners(Name zone) {
        Map<Name, Map<String, List<Record>>> owners = byZone.get(zone);
        return owners == null ? Set.of() : owners.keySet();
    }

    List<Emitted> of(String contributor) {
        return byContributor.getOrDefault(contributor, List.of());
    }
}
