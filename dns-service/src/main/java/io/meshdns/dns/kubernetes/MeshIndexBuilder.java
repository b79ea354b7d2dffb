package io.meshdns.dns.kubernetes;

import io.meshdns.dns.snapshot.MeshIndex;

import io.meshdns.dns.snapshot.MeshIndex.AddressLocality;
import io.meshdns.dns.snapshot.MeshIndex.ExportScope;
import io.meshdns.model.ShardedMap;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds successive {@link MeshIndex}es that share every untouched shard with the previous one: each compile
 * operation opens an {@link Edit}, changes what it recompiled, and {@linkplain Edit#build builds} the next index.
 * Not thread-safe (the compiler serialises operations).
 */
final class MeshIndexBuilder {
    private ShardedMap<String, Boolean> namespaces = ShardedMap.empty();
    private ShardedMap<InetAddress, String> podNamespaceByIp = ShardedMap.empty();
    private ShardedMap<Name, Boolean> serviceNames = ShardedMap.empty();
    private ShardedMap<Name, Boolean> spreadNames = ShardedMap.empty();
    private ShardedMap<Name, Map<InetAddress, AddressLocality>> localities = ShardedMap.empty();
    /** How many contributors saw each zone on this node's endpoints (one Service's endpoints may move first). */
    private final Map<String, Integer> nodeZoneVotes = new java.util.TreeMap<>();
    private ShardedMap<Name, ExportScope> exportScopes = ShardedMap.empty();
    private ShardedMap<Name, ExportScope> wildcardExportScopes = ShardedMap.empty();
    private Map<Name, List<Record>> wildcardHosts = Map.of();
    private List<InetAddress> placeholderAddresses = List.of();
    private MeshIndex current = MeshIndex.EMPTY;
    /*
     * Several contributors can restrict one name: a Service group and a ServiceEntry host that is the same
     * name, or two entries' wildcard hosts. The index holds the union of what every one of them put, so one
     * contributor dropping its scope must not drop another's: these hold each contributor's scope per name.
     */
    private final Map<Name, List<ExportScope>> scopeHolders = new HashMap<>();
    private final Map<Name, List<ExportScope>> wildcardScopeHolders = new HashMap<>();

    MeshIndex current() {
        return current;
    }

    Edit edit() {
        return new Edit();
    }

    /** The changes of one operation; {@link #build} publishes them. */
    final class Edit {
        final ShardedMap.Editor<String, Boolean> namespaces = MeshIndexBuilder.this.namespaces.edit();
        final ShardedMap.Editor<InetAddress, String> podNamespaceByIp = MeshIndexBuilder.this.podNamespaceByIp.edit();
        final ShardedMap.Editor<Name, Boolean> serviceNames = MeshIndexBuilder.this.serviceNames.edit();
        final ShardedMap.Editor<Name, Boolean> spreadNames = MeshIndexBuilder.this.spreadNames.edit();
        final ShardedMap.Editor<Name, Map<InetAddress, AddressLocality>> localities = MeshIndexBuilder.this.localities.edit();
        final ShardedMap.Editor<Name, ExportScope> exportScopes = MeshIndexBuilder.this.exportScopes.edit();
        final ShardedMap.Editor<Name, ExportScope> wildcardExportScopes = MeshIndexBuilder.this.wildcardExportScopes.edit();
        private Map<Name, List<Record>> wildcards;
        private List<InetAddress> placeholder;

        /** Replaces the placeholder Service's addresses. */
        void placeholderAddresses(List<InetAddress> ips) {
            placeholder = List.copyOf(ips);
        }

        /** Replaces the wildcard hosts (null: unchanged). */
        void wildcardHosts(Map<Name, List<Record>> all) {
            wildcards = all;
        }

        /** Moves what {@code before} put into the index to what {@code after} puts there. */
        void replace(Contribution before, Contribution after) {
            if (before != null) {
                for (Name n : before.spread) spreadNames.remove(n);
                for (Name n : before.localities.keySet()) localities.remove(n);
                if (before.nodeZone != null) nodeZoneVotes.computeIfPresent(before.nodeZone, (z, v) -> v == 1 ? null : v - 1);
            }
            if (after != null) {
                for (Name n : after.spread) spreadNames.put(n, Boolean.TRUE);
                after.localities.forEach(localities::put);
                if (after.nodeZone != null) nodeZoneVotes.merge(after.nodeZone, 1, Integer::sum);
            }
            moveScopes(before == null ? null : before.scopes, after == null ? null : after.scopes, scopeHolders, exportScopes);
            moveScopes(before == null ? null : before.wildcardScopes, after == null ? null : after.wildcardScopes,
                    wildcardScopeHolders, wildcardExportScopes);
        }

        private static void moveScopes(Map<Name, ExportScope> before, Map<Name, ExportScope> after,
                                       Map<Name, List<ExportScope>> holders, ShardedMap.Editor<Name, ExportScope> published) {
            List<Name> touched = new ArrayList<>();
            if (before != null) {
                before.forEach((n, scope) -> {
                    List<ExportScope> held = holders.get(n);
                    if (held != null && held.remove(scope) && held.isEmpty()) holders.remove(n);
                    touched.add(n);
                });
            }
            if (after != null) {
                after.forEach((n, scope) -> {
                    holders.computeIfAbsent(n, k -> new ArrayList<>(1)).add(scope);
                    touched.add(n);
                });
            }
            for (Name n : touched) {
                List<ExportScope> held = holders.get(n);
                if (held == null) {
                    published.remove(n);
                } else {
                    published.put(n, ExportScopes.union(held));
                }
            }
        }

        /** The zone most contributors saw on this node (ties: the first by name); null when none did. */
        private String learnedZone() {
            String best = null;
            int votes = 0;
            for (Map.Entry<String, Integer> e : nodeZoneVotes.entrySet()) {
                if (e.getValue() > votes) {
                    best = e.getKey();
                    votes = e.getValue();
                }
            }
            return best;
        }

        MeshIndex build(long version) {
            MeshIndexBuilder b = MeshIndexBuilder.this;
            b.namespaces = namespaces.build();
            b.podNamespaceByIp = podNamespaceByIp.build();
            b.serviceNames = serviceNames.build();
            b.spreadNames = spreadNames.build();
            b.localities = localities.build();
            b.exportScopes = exportScopes.build();
            b.wildcardExportScopes = wildcardExportScopes.build();
            if (wildcards != null) b.wildcardHosts = wildcards;
            if (placeholder != null) b.placeholderAddresses = placeholder;
            b.current = new MeshIndex(b.namespaces.keySet(), b.podNamespaceByIp, b.serviceNames.keySet(), b.spreadNames.keySet(),
                    b.wildcardHosts, b.exportScopes, b.wildcardExportScopes, b.placeholderAddresses, b.localities, learnedZone(),
                    version);
            return b.current;
        }
    }
}
