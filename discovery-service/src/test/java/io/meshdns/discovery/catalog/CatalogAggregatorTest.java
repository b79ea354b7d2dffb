package io.meshdns.discovery.catalog;

import io.meshdns.model.Catalog;
import io.meshdns.model.CatalogDelta;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.ClusterStatus;
import io.meshdns.model.Kind;
import io.meshdns.model.ObjectRef;
import io.meshdns.model.ServiceType;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CatalogAggregatorTest {
    private static CatalogEntry.Service svc(String cluster, String name, String ip) {
        return new CatalogEntry.Service(cluster, "default", name, ServiceType.CLUSTER_IP, List.of(ip), null, List.of(), List.of());
    }

    private static CatalogAggregator ready(long start, int history) {
        CatalogAggregator a = new CatalogAggregator(start, 50, history, null);
        a.markReady();
        a.flush(); // the first, empty version
        return a;
    }

    @Test
    void changesWithinABatchBecomeOneVersionWithOnlyTheNetChange() {
        CatalogAggregator a = ready(100, 10);
        assertEquals(101, a.current().version());
        a.upsert(svc("east", "web", "10.0.0.1"));
        a.upsert(svc("east", "web", "10.0.0.2"));
        a.upsert(svc("east", "tmp", "10.0.0.3"));
        a.delete(svc("east", "tmp", "10.0.0.3").ref());
        CatalogDelta d = a.flush();
        assertEquals(101, d.fromVersion());
        assertEquals(102, d.toVersion());
        assertEquals(List.of(svc("east", "web", "10.0.0.2")), d.upserts());
        assertEquals(List.of(), d.deletes(), "a ref created and deleted in one batch never existed for clients");
        assertNull(a.flush(), "nothing pending: no version");
        a.upsert(svc("east", "web", "10.0.0.2"));
        assertNull(a.flush(), "an identical upsert (informer resync) makes no version");
    }

    @Test
    void historyServesDeltasSinceAVersionOrNullWhenTooOldOrUnknown() {
        CatalogAggregator a = ready(0, 3);
        for (int i = 0; i < 5; i++) {
            a.upsert(svc("east", "s" + i, "10.0.0." + (i + 1)));
            a.flush();
        }
        assertEquals(6, a.current().version());
        assertEquals(List.of(), a.deltasSince(6));
        List<CatalogDelta> tail = a.deltasSince(4);
        assertEquals(2, tail.size());
        assertEquals(4, tail.get(0).fromVersion());
        assertEquals(6, tail.get(1).toVersion());
        assertNotNull(a.deltasSince(3));
        assertNull(a.deltasSince(2), "older than the ring buffer");
        assertNull(a.deltasSince(7), "a version from the future (another process)");

        Catalog replay = Catalog.of(new io.meshdns.model.CatalogSnapshot(1, 4, List.of(), List.of(
                svc("east", "s0", "10.0.0.1"), svc("east", "s1", "10.0.0.2"), svc("east", "s2", "10.0.0.3"))));
        for (CatalogDelta d : tail) replay = replay.apply(d);
        assertEquals(a.current().entries(), replay.entries());
    }

    @Test
    void reconcileMakesAClusterKindEqualToTheTruthAndKeepsRejectedRefs() {
        CatalogAggregator a = ready(0, 10);
        a.upsert(svc("east", "keep", "10.0.0.1"));
        a.upsert(svc("east", "gone", "10.0.0.2"));
        a.upsert(svc("east", "bad-now", "10.0.0.3"));
        a.upsert(svc("west", "other", "10.0.0.4"));
        a.upsert(new CatalogEntry.Namespace("east", "default"));
        a.flush();
        a.reconcile("east", Set.of(Kind.SERVICE), List.of(svc("east", "keep", "10.0.0.1"), svc("east", "new", "10.0.0.5")),
                Set.of(svc("east", "bad-now", "x").ref()));
        CatalogDelta d = a.flush();
        assertEquals(List.of(svc("east", "new", "10.0.0.5")), d.upserts());
        assertEquals(List.of(svc("east", "gone", "x").ref()), d.deletes());
        assertTrue(a.current().entries().containsKey(new ObjectRef("west", Kind.SERVICE, "default", "other")));
        assertTrue(a.current().entries().containsKey(new ObjectRef("east", Kind.NAMESPACE, "", "default")));
    }

    @Test
    void clusterStatusChangesTravelInTheDeltaAndRemovingAClusterDeletesItsEntries() {
        CatalogAggregator a = ready(0, 10);
        a.updateCluster(new ClusterStatus("west", false, false, 1, List.of()));
        a.upsert(svc("west", "web", "10.0.0.1"));
        a.upsert(svc("east", "web", "10.0.0.2"));
        CatalogDelta d = a.flush();
        assertEquals(List.of(new ClusterStatus("west", false, false, 1, List.of())), d.clusters());
        a.updateCluster(new ClusterStatus("west", false, false, 1, List.of()));
        assertNull(a.flush(), "an unchanged status is no change");
        a.removeCluster("west");
        d = a.flush();
        assertEquals(List.of(), d.clusters());
        assertEquals(List.of(svc("west", "web", "x").ref()), d.deletes());
        assertEquals(1, a.current().entries().size());
    }

    @Test
    void nothingIsServedBeforeEverySourceListedOnce() {
        CatalogAggregator a = new CatalogAggregator(10, 50, 10, null);
        a.expectInitialSync("east");
        a.expectInitialSync("files");
        a.upsert(svc("east", "web", "10.0.0.1"));
        assertNull(a.flush());
        a.initialSyncDone("east");
        assertNull(a.flush());
        assertTrue(!a.isReady());
        a.initialSyncDone("files");
        CatalogDelta d = a.flush();
        assertEquals(10, d.fromVersion());
        assertEquals(1, d.upserts().size());
    }

    @Test
    void subscribersSeeEveryVersionInOrderAndTheScheduledFlushBatches() throws Exception {
        ScheduledExecutorService s = Executors.newSingleThreadScheduledExecutor();
        try {
            CatalogAggregator a = new CatalogAggregator(0, 20, 10, s);
            List<CatalogDelta> seen = new ArrayList<>();
            CatalogAggregator.Subscription sub = a.subscribe(-1, (d, c) -> {
                synchronized (seen) {
                    seen.add(d);
                }
            });
            assertTrue(!sub.ready());
            a.markReady();
            for (int i = 0; i < 100; i++) a.upsert(svc("east", "s" + i, "10.0.0.1"));
            await().atMost(5, TimeUnit.SECONDS).until(() -> a.current().entries().size() == 100);
            synchronized (seen) {
                for (int i = 1; i < seen.size(); i++) assertEquals(seen.get(i - 1).toVersion(), seen.get(i).fromVersion());
                assertEquals(a.current().version(), seen.get(seen.size() - 1).toVersion());
            }
            sub.cancel().run();
        } finally {
            s.shutdownNow();
        }
    }
}
