package io.meshdns.discovery.api;

import io.meshdns.model.Catalog;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.CatalogSnapshot;
import io.meshdns.model.PortSpec;
import io.meshdns.model.ServiceType;
import io.meshdns.model.WireFormat;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The snapshot of one version is encoded once and held once: at 100k Services the plain JSON, the
 * NDJSON watch line and the gzip must not be three full copies (with a 256 MB heap every /v1/snapshot
 * then failed while readiness said UP). Measured as the bytes the encoding allocates.
 */
class EncodedEventsTest {
    static Catalog catalog(int services) {
        List<CatalogEntry> entries = new ArrayList<>(services);
        for (int i = 0; i < services; i++) {
            entries.add(new CatalogEntry.Service("east", "ns-" + (i % 100), "svc-" + i, ServiceType.CLUSTER_IP,
                    List.of("10." + (i >> 16 & 255) + "." + (i >> 8 & 255) + "." + (i & 255)), null,
                    List.of(new PortSpec("http", "TCP", 8080)), List.of()));
        }
        return Catalog.of(new CatalogSnapshot(CatalogSnapshot.FORMAT_VERSION, 7, List.of(), entries));
    }

    @Test
    void aSnapshotOf100kServicesIsHeldOnceAndTheWatchLineSharesItsBytes() {
        Catalog c = catalog(100_000);
        byte[] expected = WireFormat.encode(c.toSnapshot());
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long heapBefore = usedAfterGc();
        long before = threads.getCurrentThreadAllocatedBytes();
        EncodedEvents.Snapshot s = new EncodedEvents().snapshot(c);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        long retained = usedAfterGc() - heapBefore;
        System.out.printf("snapshot of 100k services: JSON %.1f MB, gzip %.1f MB, held %.1f MB (%.2f x the JSON), allocated while encoding %.1f MB%n",
                expected.length / 1e6, s.gzip().length() / 1e6, retained / 1e6, (double) retained / expected.length, allocated / 1e6);
        assertArrayEquals(expected, s.json().getBytes());
        String prefix = "{\"type\":\"snapshot\",\"version\":7,\"snapshot\":";
        byte[] line = s.line().getBytes();
        assertTrue(new String(line, 0, prefix.length(), StandardCharsets.UTF_8).equals(prefix));
        assertTrue(line[line.length - 1] == '\n' && line[line.length - 2] == '}');
        assertTrue(retained < 1.6 * expected.length, "held " + retained + " bytes for a " + expected.length + "-byte JSON");
        assertTrue(s.json().length() > 0); // keeps the snapshot reachable until after the measurement
    }

    private static long usedAfterGc() {
        Runtime rt = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return rt.totalMemory() - rt.freeMemory();
    }
}
