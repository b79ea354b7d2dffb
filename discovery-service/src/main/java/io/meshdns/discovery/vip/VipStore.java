package io.meshdns.discovery.vip;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
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
