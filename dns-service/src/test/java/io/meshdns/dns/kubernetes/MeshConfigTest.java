package io.meshdns.dns.kubernetes;

import io.meshdns.dns.InvalidConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.HashMap;
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

    /** Each row: the key the failure must name, then the values set ({@code name=value}, several apart by {@code ;}). */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "meshdns.dns.remote-service-policy         | remote-service-policy=nearest",
            "meshdns.dns.pods                          | pods=maybe",
            "meshdns.dns.multicluster.spread           | spread=random",
            "meshdns.dns.kubernetes.ttl                | ttl=-1",
            "meshdns.dns.cluster-gateways.west         | gw=10.0.0.1,gateway.example",
            "meshdns.dns.placeholder.ipv4              | ph=true",
            "meshdns.dns.placeholder.ipv4              | ph=true; ph-ip=fd00::1",
            "meshdns.dns.placeholder.ipv4              | remote-service-policy=placeholder",
            "meshdns.dns.cluster-domain                | cluster-domain=bad..domain",
            "meshdns.dns.default-export-to             | export=shop,not a namespace",
            "meshdns.dns.multicluster.stale-clusters   | stale=forget",
            "meshdns.dns.multicluster.unhealthy-clusters | unhealthy=ignore",
            "meshdns.dns.placeholder.service           | ph-svc=global-sidecar",
            "meshdns.dns.placeholder.service           | ph-svc=a/b/c",
            "meshdns.dns.locality.order                | locality=nearest",
    })
    void badValuesNameTheirKey(String key, String values) {
        Map<String, String> v = new HashMap<>();
        for (String setting : values.split(";")) {
            String[] nameValue = setting.trim().split("=", 2);
            v.put(nameValue[0], nameValue[1]);
        }
        InvalidConfigException e = assertThrows(InvalidConfigException.class, () -> MeshNaming.settings(config(v)));
        assertEquals(key, e.key(), e.getMessage());
        assertTrue(e.getMessage().startsWith(key), e.getMessage());
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
