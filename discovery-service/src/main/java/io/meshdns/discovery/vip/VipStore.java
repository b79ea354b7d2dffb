package io.meshdns.discovery.vip;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeMap;

/**
 * Where the allocation table survives restarts: a ConfigMap in a cluster, a file on the edge. Both
 * hold the same text, one host per line followed by its VIPs, e.g.
 * {@code legacy.service.entry 240.240.12.7 2001:2::3:91a}, sorted by host, so the ConfigMap diffs well.
 */
public interface VipStore {

    /** The persisted table; empty when there is none yet. */
    Map<String, List<String>> load() throws IOException;

    void save(Map<String, List<String>> allocations) throws IOException;

    /**
     * Saves {@code allocations} without losing what another writer stored since this store last read
     * or wrote, and returns the table as stored. The default (one writer) is {@link #save}; a store
     * shared by several replicas merges: what the other writer stored wins (same host, or the same
     * address given to another host), our other hosts are added.
     */
    default Map<String, List<String>> saveMerging(Map<String, List<String>> allocations) throws IOException {
        save(allocations);
        return allocations;
    }

    /** {@code theirs} plus every host of {@code ours} whose addresses {@code theirs} does not use. */
    static Map<String, List<String>> merge(Map<String, List<String>> theirs, Map<String, List<String>> ours) {
        Map<String, List<String>> out = new TreeMap<>(theirs);
        Set<String> used = new HashSet<>();
        theirs.values().forEach(used::addAll);
        ours.forEach((host, ips) -> {
            if (out.containsKey(host)) return;
            if (ips.stream().anyMatch(used::contains)) return; // another replica gave that address to another host
            out.put(host, ips);
            used.addAll(ips);
        });
        return out;
    }

    /** For logs. */
    String describe();

    static String encode(Map<String, List<String>> allocations) {
        StringBuilder sb = new StringBuilder();
        new TreeMap<>(allocations).forEach((host, ips) -> sb.append(host).append(' ').append(String.join(" ", ips)).append('\n'));
        return sb.toString();
    }

    static Map<String, List<String>> decode(String text) {
        Map<String, List<String>> out = new TreeMap<>();
        if (text == null) return out;
        for (String line : text.split("\n")) {
            String l = line.trim();
            if (l.isEmpty() || l.startsWith("#")) continue;
            String[] parts = l.split("\\s+");
            if (parts.length < 2) continue;
            out.put(parts[0], new ArrayList<>(Arrays.asList(parts).subList(1, parts.length)));
        }
        return out;
    }

    /** No persistence: VIPs are still stable in practice thanks to the hash-based first choice. */
    VipStore NONE = new VipStore() {
        public Map<String, List<String>> load() {
            return Map.of();
        }

        public void save(Map<String, List<String>> allocations) {
        }

        public String describe() {
            return "nowhere (hash-based choice only)";
        }
    };
}
