package io.meshdns.model;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class CatalogTest {
    private static final CatalogEntry.Service SVC = new CatalogEntry.Service("east", "default", "web",
            ServiceType.CLUSTER_IP, List.of("10.0.0.1", "fd00::1"), null,
            List.of(new PortSpec("http", "TCP", 80)), List.of());
    private static final CatalogEntry.ServiceEntry SE = new CatalogEntry.ServiceEntry("east", "istio", "ext",
            List.of("api.example.com"), List.of(), "DNS", List.of(), List.of(),
            Map.of("api.example.com", List.of("240.240.0.1")));

    @Test
    void snapshotSurvivesJsonRoundTripWithEveryEntryKind() {
        Catalog c = Catalog.of(new CatalogSnapshot(1, 7, List.of(new ClusterStatus("east", true, false, 1L, List.of())),
                List.of(SVC, SE, new CatalogEntry.Namespace("east", "default"),
                        new CatalogEntry.EndpointSlice("east", "default", "web-abc", "web", "IPv4",
                                List.of(new EndpointAddress(List.of("10.1.0.5"), "web-0", true, "n1", "web-0")), List.of()),
                        new CatalogEntry.Pod("east", "default", "web-0", List.of("10.1.0.5")),
                        new CatalogEntry.ServiceImport("east", "default", "web", "ClusterSetIP", List.of("10.9.0.1"), List.of()))));
        byte[] json = WireFormat.encode(WatchEvent.of(c.toSnapshot()));
        WatchEvent back = WireFormat.decode(json, WatchEvent.class);
        assertEquals(c.toSnapshot(), back.snapshot());
        assertEquals(7, back.version());
    }

    @Test
    void diffThenApplyReproducesTheTarget() {
        Catalog from = Catalog.of(new CatalogSnapshot(1, 1, List.of(), List.of(SVC, new CatalogEntry.Namespace("east", "old"))));
        CatalogEntry.Service changed = new CatalogEntry.Service("east", "default", "web", ServiceType.CLUSTER_IP,
                List.of("10.0.0.2"), null, List.of(), List.of());
        Catalog to = Catalog.of(new CatalogSnapshot(1, 2, List.of(), List.of(changed, SE)));
        CatalogDelta d = Catalog.diff(from, to);
        assertEquals(List.of(new ObjectRef("east", Kind.NAMESPACE, "", "old")), d.deletes());
        assertEquals(2, d.upserts().size());
        assertNull(d.clusters());
        Catalog applied = from.apply(WireFormat.decode(WireFormat.encode(d), CatalogDelta.class));
        assertEquals(to.toSnapshot(), applied.toSnapshot());
    }

    @Test
    void deltaForAnotherVersionIsRejected() {
        Catalog c = Catalog.empty();
        assertThrows(IllegalStateException.class, () -> c.apply(new CatalogDelta(5, 6, null, List.of(), List.of())));
    }
}
