package io.meshdns.model;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WireFormatTest {
    /** One entry of each kind as the wire carried it before the type names were derived from Kind: the bytes must not move. */
    private static final String EVERY_KIND = "{\"formatVersion\":1,\"version\":7,\"clusters\":[],\"entries\":[{\"type\":\"Namespace\",\"cluster\":\"east\",\"name\":\"default\"},{\"type\":\"Service\",\"cluster\":\"east\",\"namespace\":\"default\",\"name\":\"web\",\"serviceType\":\"CLUSTER_IP\",\"clusterIps\":[\"10.0.0.1\"],\"externalName\":null,\"ports\":[{\"name\":\"http\",\"protocol\":\"TCP\",\"port\":80}],\"loadBalancerIngress\":[],\"exportTo\":[],\"publishNotReady\":false},{\"type\":\"EndpointSlice\",\"cluster\":\"east\",\"namespace\":\"default\",\"name\":\"web-abc\",\"serviceName\":\"web\",\"addressType\":\"IPv4\",\"endpoints\":[{\"addresses\":[\"10.1.0.5\"],\"hostname\":\"web-0\",\"ready\":true,\"nodeName\":\"n1\",\"podName\":\"web-0\",\"zone\":null,\"forZones\":[]}],\"ports\":[],\"lastChangeTriggerTime\":null},{\"type\":\"Pod\",\"cluster\":\"east\",\"namespace\":\"default\",\"name\":\"web-0\",\"ips\":[\"10.1.0.5\"]},{\"type\":\"ServiceEntry\",\"cluster\":\"east\",\"namespace\":\"istio\",\"name\":\"ext\",\"hosts\":[\"api.example.com\"],\"addresses\":[],\"resolution\":\"DNS\",\"endpointAddresses\":[],\"ports\":[],\"allocatedVips\":{},\"statusAddresses\":{},\"exportTo\":[],\"autoAllocateOptOut\":false,\"created\":null},{\"type\":\"ServiceImport\",\"cluster\":\"east\",\"namespace\":\"default\",\"name\":\"web\",\"importType\":\"ClusterSetIP\",\"ips\":[\"10.9.0.1\"],\"ports\":[]}]}";

    private static final CatalogSnapshot SNAPSHOT = new CatalogSnapshot(1, 7, List.of(), List.of(
            new CatalogEntry.Namespace("east", "default"),
            new CatalogEntry.Service("east", "default", "web", ServiceType.CLUSTER_IP, List.of("10.0.0.1"), null,
                    List.of(new PortSpec("http", "TCP", 80)), List.of()),
            new CatalogEntry.EndpointSlice("east", "default", "web-abc", "web", "IPv4",
                    List.of(new EndpointAddress(List.of("10.1.0.5"), "web-0", true, "n1", "web-0")), List.of()),
            new CatalogEntry.Pod("east", "default", "web-0", List.of("10.1.0.5")),
            new CatalogEntry.ServiceEntry("east", "istio", "ext", List.of("api.example.com"), List.of(), "DNS", List.of(),
                    List.of(), Map.of()),
            new CatalogEntry.ServiceImport("east", "default", "web", "ClusterSetIP", List.of("10.9.0.1"), List.of())));

    @Test
    void everyKindsEntryHasItsTypeNameOnTheWire() {
        assertEquals(EVERY_KIND, new String(WireFormat.encode(SNAPSHOT), StandardCharsets.UTF_8));
        assertEquals(SNAPSHOT, WireFormat.decode(EVERY_KIND, CatalogSnapshot.class));
    }

    /** The wire's type names come from Kind: each of CatalogEntry's records is exactly one kind's entry type. */
    @Test
    void everyEntryRecordIsOneKindsEntryType() {
        Set<Class<?>> fromKinds = new HashSet<>();
        for (Kind kind : Kind.values()) assertTrue(fromKinds.add(kind.entryType()), kind + " shares " + kind.entryType());
        assertEquals(Set.of(CatalogEntry.class.getPermittedSubclasses()), fromKinds);
    }
}
