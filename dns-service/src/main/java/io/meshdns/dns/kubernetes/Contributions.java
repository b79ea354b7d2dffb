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

    /** One contributor's records at one owner. */
    private record Part(String contributor, Record[] records) {
    }

    private final Map<String, List<Emitted>> byContributor = new HashMap<>();
    /**
     * Zone key → owner → a {@link Part}, or a {@code Part[]} when several contributors share the owner. Most
     * owners have one contributor: a bare Part keeps the table small (a map per owner cost ~20 MB at 10k services).
     */
    private final Map<Name, Map<Name, Object>> byZone = new HashMap<>();

    /**
     * Makes {@code records} the whole output of {@code contributor} (empty: it contributes nothing) and adds
     * every owner whose records may have changed to {@code touched} (zone key → owners).
     */
    void replace(String contributor, List<Emitted> records, Map<Name, Set<Name>> touched) {
        List<Emitted> old = records.isEmpty() ? byContributor.remove(contributor) : byContributor.put(contributor, List.copyOf(records));
        if (old != null) {
            for (Emitted e : old) {
                Name owner = e.record().getName();
                Map<Name, Object> owners = byZone.get(e.zone());
                Object parts = owners == null ? null : owners.get(owner);
                if (parts == null) continue;
                Object rest = without(parts, contributor);
                if (rest == parts) continue; // already removed: the contributor had several records there
                if (rest == null) owners.remove(owner);
                else owners.put(owner, rest);
                touched.computeIfAbsent(e.zone(), z -> new LinkedHashSet<>()).add(owner);
            }
        }
        Map<Name, Map<Name, List<Record>>> grouped = new LinkedHashMap<>();
        for (Emitted e : records) {
            grouped.computeIfAbsent(e.zone(), z -> new LinkedHashMap<>())
                    .computeIfAbsent(e.record().getName(), n -> new ArrayList<>(2)).add(e.record());
        }
        grouped.forEach((zone, owners) -> {
            Map<Name, Object> table = byZone.computeIfAbsent(zone, z -> new LinkedHashMap<>());
            owners.forEach((owner, list) -> {
                Part part = new Part(contributor, list.toArray(new Record[0]));
                table.merge(owner, part, (existing, p) -> with(existing, (Part) p));
                touched.computeIfAbsent(zone, z -> new LinkedHashSet<>()).add(owner);
            });
        });
    }

    private static Object without(Object parts, String contributor) {
        if (parts instanceof Part p) return p.contributor().equals(contributor) ? null : parts;
        Part[] all = (Part[]) parts;
        List<Part> keep = new ArrayList<>(all.length);
        for (Part p : all) if (!p.contributor().equals(contributor)) keep.add(p);
        if (keep.size() == all.length) return parts;
        return keep.size() == 1 ? keep.get(0) : keep.toArray(new Part[0]);
    }

    private static Object with(Object parts, Part part) {
        if (parts instanceof Part p) return new Part[]{p, part};
        Part[] all = (Part[]) parts;
        Part[] next = java.util.Arrays.copyOf(all, all.length + 1);
        next[all.length] = part;
        return next;
    }

    private static void addAll(Object parts, List<Record> out) {
        if (parts instanceof Part p) {
            java.util.Collections.addAll(out, p.records());
        } else {
            for (Part p : (Part[]) parts) java.util.Collections.addAll(out, p.records());
        }
    }

    /** Every record of {@code owner} in zone {@code zone}, from every contributor. */
    List<Record> at(Name zone, Name owner) {
        Map<Name, Object> owners = byZone.get(zone);
        Object parts = owners == null ? null : owners.get(owner);
        if (parts == null) return List.of();
        List<Record> all = new ArrayList<>();
        addAll(parts, all);
        return all;
    }

    /** Every record in zone {@code zone}, owner by owner. */
    List<Record> all(Name zone) {
        Map<Name, Object> owners = byZone.get(zone);
        if (owners == null) return List.of();
        List<Record> out = new ArrayList<>();
        for (Object parts : owners.values()) addAll(parts, out);
        return out;
    }

    /** The owners of zone {@code zone}. */
    Set<Name> owners(Name zone) {
        Map<Name, Object> owners = byZone.get(zone);
        return owners == null ? Set.of() : owners.keySet();
    }
}
