package io.meshdns.dns.discovery;

import io.meshdns.model.Catalog;
import io.meshdns.model.CatalogDelta;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.CatalogSnapshot;
import io.meshdns.model.WatchEvent;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.meshdns.dns.discovery.CatalogFollower.Outcome.CHANGED;
import static io.meshdns.dns.discovery.CatalogFollower.Outcome.NEEDS_SNAPSHOT;
import static io.meshdns.dns.discovery.CatalogFollower.Outcome.UNCHANGED;
import static org.junit.jupiter.api.Assertions.assertEquals;

class CatalogFollowerTest {
    private static final CatalogEntry NS_A = new CatalogEntry.Namespace("east", "a");
    private static final CatalogEntry NS_B = new CatalogEntry.Namespace("east", "b");

    private static CatalogSnapshot snap(long v, CatalogEntry... e) {
        return new CatalogSnapshot(CatalogSnapshot.FORMAT_VERSION, v, List.of(), List.of(e));
    }

    @Test
    void deltaBeforeAnySnapshotAsksForOne() {
        assertEquals(NEEDS_SNAPSHOT, new CatalogFollower().accept(WatchEvent.of(new CatalogDelta(0, 1, null, List.of(NS_A), List.of()))));
    }

    @Test
    void deltasApplyInOrderAndAGapAsksForASnapshotWithoutChangingAnything() {
        CatalogFollower f = new CatalogFollower();
        assertEquals(CHANGED, f.accept(WatchEvent.of(snap(5, NS_A))));
        assertEquals(CHANGED, f.accept(WatchEvent.of(new CatalogDelta(5, 6, null, List.of(NS_B), List.of(NS_A.ref())))));
        assertEquals(6, f.version());
        Catalog before = f.catalog();
        assertEquals(NEEDS_SNAPSHOT, f.accept(WatchEvent.of(new CatalogDelta(8, 9, null, List.of(NS_A), List.of()))));
        assertEquals(before, f.catalog());
        assertEquals(UNCHANGED, f.accept(WatchEvent.of(new CatalogDelta(5, 6, null, List.of(NS_B), List.of()))), "replayed delta");
        assertEquals(UNCHANGED, f.accept(WatchEvent.heartbeat(6)));
        assertEquals(List.of(NS_B), List.copyOf(f.catalog().values()));
    }

    @Test
    void aSnapshotReplacesEvenAnOlderVersionAfterADiscoveryRestart() {
        CatalogFollower f = new CatalogFollower();
        f.accept(WatchEvent.of(snap(100, NS_A)));
        assertEquals(CHANGED, f.accept(WatchEvent.of(snap(3, NS_B))));
        assertEquals(3, f.version());
    }
}
