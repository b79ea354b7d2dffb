package io.meshdns.dns.kubernetes;

import io.meshdns.dns.InvalidConfigException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bad mesh config fails with the key's name; good values parse. */
class MeshConfigTest {

    static KubernetesDnsConfig config(Map<String, String> v) {
        return new KubernetesDnsConfig() {
            public String clusterDomain() { return v.getOrDefault("cluster-domain", "cluster.local"); }
            public String clustersetDomain() { return "clusterset.local"; }
            public Optional<String> clusterName() { return Optional.ofNullable(v.get("cluster-name")); }
            public String remoteServicePolicy() { return v.getOrDefault("remote-service-policy", "cluster-ip"); }
            public Map<String, String> clusterGateways() {
                return v.containsKey("gw") ? Map.of("west", v.get("gw")) : Map.of();
            }
            public String pods() { return v.getOrDefault("pods", "disabled"); }
            public Kubernetes kubernetes() { return () -> Long.parseLong(v.getOrDefault("ttl", "5")); }
            public Multicluster multicluster() {
                return new Multicluster() {
                    public String spread() { return v.getOrDefault("spread", "shuffle"); }
                    public boolean failoverToRemote() { return Boolean.parseBoolean(v.getOrDefault("failover", "true")); }
                    public String staleClusters() { return v.getOrDefault("stale", "keep"); }
                    public String unhealthyClusters() { return v.getOrDefault("unhealthy", "keep"); }
                };
            }
            public Clusterset clusterset() { return () -> Boolean.parseBoolean(v.getOrDefault("per-cluster", "false")); }
            public List<String> defaultExportTo() { return List.of(v.getOrDefault("export", "*").split(",")); }
            public Placeholder placeholder() {
                return new Placeholder() {
                    public boolean enabled() { return Boolean.parseBoolean(v.getOrDefault("ph", "false")); }
                    public Optional<String> ipv4() { return Optional.ofNullable(v.get("ph-ip")); }
                    public Optional<List<String>> serviceEntrySuffixes() { return Optional.of(List.of("service.entry")); }
                    public long ttl() { return 60; }
                    public Optional<String> service() { return Optional.ofNullable(v.get("ph-svc")); }
                };
            }
            public Autopath autopath() { return () -> false; }
            public Locality locality() {
                return new Locality() {
                    public String order() { return v.getOrDefault("locality", "zone"); }
                    public Optional<String> zone() { return Optional.ofNullable(v.get("zone")); }
                    public Optional<String> nodeName() { return Optional.ofNullable(v.get("node")); }
                };
            }
        };
    }

    private static void failsNaming(String key, Map<String, String> v) {
        InvalidConfigException e = assertThrows(InvalidConfigException.class, () -> MeshNaming.settings(config(v)));
        assertEquals(key, e.key(), e.getMessage());
        assertTrue(e.getMessage().startsWith(key), e.getMessage());
    }

    @Test
    void badValuesNameTheirKey() {
        failsNaming("meshdns.dns.remote-service-policy", Map.of("remote-service-policy", "nearest"));
        failsNaming("meshdns.dns.pods", Map.of("pods", "maybe"));
        failsNaming("meshdns.dns.multicluster.spread", Map.of("spread", "random"));
        failsNaming("meshdns.dns.kubernetes.ttl", Map.of("ttl", "-1"));
        failsNaming("meshdns.dns.cluster-gateways.west", Map.of("gw", "10.0.0.1,gateway.example"));
        failsNaming("meshdns.dns.placeholder.ipv4", Map.of("ph", "true"));
        failsNaming("meshdns.dns.placeholder.ipv4", Map.of("ph", "true", "ph-ip", "fd00::1"));
        failsNaming("meshdns.dns.placeholder.ipv4", Map.of("remote-service-policy", "placeholder"));
        failsNaming("meshdns.dns.cluster-domain", Map.of("cluster-domain", "bad..domain"));
        failsNaming("meshdns.dns.default-export-to", Map.of("export", "shop,not a namespace"));
        failsNaming("meshdns.dns.multicluster.stale-clusters", Map.of("stale", "forget"));
        failsNaming("meshdns.dns.multicluster.unhealthy-clusters", Map.of("unhealthy", "ignore"));
        failsNaming("meshdns.dns.placeholder.service", Map.of("ph-svc", "global-sidecar"));
        failsNaming("meshdns.dns.placeholder.service", Map.of("ph-svc", "a/b/c"));
        failsNaming("meshdns.dns.locality.order", Map.of("locality", "nearest"));
    }

    @Test
    void exportDefaultsAndClustersetSwitchesParse() {
        MeshSettings defaults = MeshNaming.settings(config(Map.of()));
        assertEquals(List.of("*"), defaults.defaultExportTo());
        assertTrue(defaults.failoverToRemote());
        assertTrue(!defaults.clustersetPerClusterNames(), "per-cluster clusterset names are opt-in (MCS 2.3.4, 2.4.4)");
        MeshSettings s = MeshNaming.settings(config(Map.of("export", ".,istio-system", "failover", "false", "per-cluster", "true",
                "ph", "true", "ph-svc", "istio-system/global-sidecar")));
        assertEquals(List.of(".", "istio-system"), s.defaultExportTo());
        assertTrue(!s.failoverToRemote());
        assertTrue(s.clustersetPerClusterNames());
        assertEquals("istio-system/global-sidecar", s.placeholder().service());
        assertTrue(!defaults.dropStaleClusters(), "a stale cluster's records are kept unless asked");
        assertTrue(MeshNaming.settings(config(Map.of("stale", "drop"))).dropStaleClusters());
        assertTrue(!defaults.dropUnhealthyClusters(), "health is not read unless asked");
        assertTrue(MeshNaming.settings(config(Map.of("unhealthy", "drop"))).dropUnhealthyClusters());
        assertEquals(new MeshSettings.Locality(MeshSettings.Locality.Order.ZONE, null, null), defaults.locality());
        assertEquals(new MeshSettings.Locality(MeshSettings.Locality.Order.CLUSTER, "zone-a", "node-1"),
                MeshNaming.settings(config(Map.of("locality", "cluster", "zone", " zone-a ", "node", "node-1"))).locality());
    }

    @Test
    void goodValuesParse() {
        MeshSettings s = MeshNaming.settings(config(Map.of("remote-service-policy", "gateway", "pods", "verified", "spread", "round-robin",
                "gw", "203.0.113.1, 203.0.113.2", "ph", "true", "ph-ip", "1.1.1.2", "cluster-name", "east")));
        assertEquals(MeshSettings.RemoteServicePolicy.GATEWAY, s.remotePolicy());
        assertEquals(MeshSettings.PodRecords.VERIFIED, s.pods());
        assertEquals(MeshSettings.Spread.ROUND_ROBIN, s.spread());
        assertEquals(2, s.gatewayOverrides().get("west").size());
        assertEquals("east", s.localCluster());
        assertEquals("service.entry.", s.placeholder().serviceEntrySuffixes().get(0).toString());
    }
}
