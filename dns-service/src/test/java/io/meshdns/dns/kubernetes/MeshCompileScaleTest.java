package io.meshdns.dns.kubernetes;

import io.meshdns.dns.snapshot.Snapshot;
import io.meshdns.dns.snapshot.SnapshotStore;
import io.meshdns.model.Catalog;
import io.meshdns.model.CatalogDelta;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.CatalogSnapshot;
import io.meshdns.model.ClusterStatus;
import io.meshdns.model.EndpointAddress;
import io.meshdns.model.PortSpec;
import io.meshdns.model.ServiceType;
import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.Name;
import org.xbill.DNS.RRset;
import org.xbill.DNS.Type;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * The compile at scale: 10k services (8k ClusterIP, 2k headless with 5 endpoints each) in 100 namespaces.
 * Asserts what the compile produces; the timings are printed (they are a measurement, not a pass/fail
 * criterion): run with {@code -Dtest=MeshCompileScaleTest} and read the log line.
 */
class MeshCompileScaleTest {
    private static final Logger LOG = Logger.getLogger(MeshCompileScaleTest.class);

    static Catalog tenThousandServices() {
        List<CatalogEntry> e = new ArrayList<>();
        PortSpec http = new PortSpec("http", "TCP", 80);
        for (int ns = 0; ns < 100; ns++) e.add(new CatalogEntry.Namespace("east", "ns" + ns));
        for (int i = 0; i < 10_000; i++) {
            String ns = "ns" + (i % 100);
            String name = "svc" + i;
            if (i % 5 == 0) {
                e.add(new CatalogEntry.Service("east", ns, name, ServiceType.CLUSTER_IP, List.of(), null, List.of(http), List.of()));
                List<EndpointAddress> eps = new ArrayList<>();
                for (int k = 0; k < 5; k++) {
                    eps.add(new EndpointAddress(List.of("10.128." + (i / 250) + "." + ((i % 250) + k)), name + "-" + k, true, "n1", name + "-" + k));
                }
                e.add(new CatalogEntry.EndpointSlice("east", ns, name + "-x", name, "IPv4", eps, List.of(http)));
            } else {
                e.add(new CatalogEntry.Service("east", ns, name, ServiceType.CLUSTER_IP,
                        List.of("10.96." + (i / 250) + "." + (i % 250)), null, List.of(http), List.of()));
            }
        }
        return Catalog.of(new CatalogSnapshot(CatalogSnapshot.FORMAT_VERSION, 1,
                List.of(new ClusterStatus("east", true, false, 0, List.of())), e));
    }

    @Test
    void compilesTenThousandServices() {
        Catalog catalog = tenThousandServices();
        MeshZoneCompiler compiler = new MeshZoneCompiler(MeshSettings.defaults());
        int runs = 7;
        long[] compileMs = new long[runs];
        long[] snapshotMs = new long[runs];
        MeshZones zones = null;
        for (int r = 0; r < runs; r++) {
            long t0 = System.nanoTime();
            zones = new MeshZoneCompiler(MeshSettings.defaults()).compile(catalog); // fresh: a full compile
            long t1 = System.nanoTime();
            Snapshot.build(r + 1, zones.zones());
            long t2 = System.nanoTime();
            compileMs[r] = (t1 - t0) / 1_000_000;
            snapshotMs[r] = (t2 - t1) / 1_000_000;
        }
        // A delta: one service's ClusterIP changes. The compiler recompiles that service name only and the
        // store patches its owners only (plus the apex SOAs): the time covers catalog apply, update and patch.
        long[] incrementalMs = new long[runs];
        long[] incrementalMicros = new long[runs];
        compiler.compile(catalog);
        SnapshotStore store = new SnapshotStore();
        store.publish("discovery", compiler.compile(catalog).zones());
        Catalog current = catalog;
        Name svc1 = Name.fromConstantString("svc1.ns1.svc.cluster.local.");
        for (int r = 0; r < runs; r++) {
            CatalogEntry.Service svc = new CatalogEntry.Service("east", "ns1", "svc1", ServiceType.CLUSTER_IP, List.of("10.99.0." + r), null,
                    List.of(), List.of());
            long t0 = System.nanoTime();
            current = current.apply(new CatalogDelta(current.version(), current.version() + 1, null, List.of(svc), List.of()));
            MeshZoneCompiler.MeshUpdate update = compiler.update(current, List.of(svc.ref()));
            store.patch("discovery", update.patches(), compiler.content());
            long nanos = System.nanoTime() - t0;
            incrementalMs[r] = nanos / 1_000_000;
            incrementalMicros[r] = nanos / 1_000;
            RRset a = store.current().findZone(svc1).node(svc1).get(Type.A);
            assertEquals("10.99.0." + r, a.first().rdataToString());
            assertEquals(1, a.size());
        }
        Arrays.sort(incrementalMicros);
        LOG.infof("mesh delta, one service of 10k: catalog apply + update + snapshot patch median %d us (min %d)",
                incrementalMicros[runs / 2], incrementalMicros[0]);
        Arrays.sort(incrementalMs);
        Arrays.sort(compileMs);
        Arrays.sort(snapshotMs);
        int records = zones.zones().stream().mapToInt(z -> z.records().size()).sum();
        LOG.infof("mesh compile, 10k services / %d records: compile median %d ms (min %d), Snapshot.build median %d ms (min %d)",
                records, compileMs[runs / 2], compileMs[0], snapshotMs[runs / 2], snapshotMs[0]);
        System.out.printf("MESH-COMPILE-10K records=%d compile_median_ms=%d compile_min_ms=%d incremental_median_ms=%d incremental_min_ms=%d"
                        + " snapshot_median_ms=%d snapshot_min_ms=%d%n",
                records, compileMs[runs / 2], compileMs[0], incrementalMs[runs / 2], incrementalMs[0], snapshotMs[runs / 2], snapshotMs[0]);

        Snapshot s = Snapshot.build(99, zones.zones());
        assertNotNull(s.findZone(Name.fromConstantString("svc1.ns1.svc.cluster.local.")).node(Name.fromConstantString("svc1.ns1.svc.cluster.local.")));
        long headlessA = zones.zones().get(0).records().stream()
                .filter(r -> r.getType() == Type.A && r.getName().labels() == 7).count(); // <host>.<svc>.<ns>.svc.cluster.local.
        assertEquals(2_000 * 5, headlessA);
    }
}
