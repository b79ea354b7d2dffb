package io.meshdns.discovery.vip;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class VipTableTest {
    private static final List<VipRange> DEFAULT = List.of(VipRange.parse("240.240.0.0/16"), VipRange.parse("2001:2::/48"));

    @Test
    void oneVipPerRangeInsideTheRanges() {
        VipTable t = new VipTable(DEFAULT);
        List<String> vips = t.allocate("legacy.service.entry");
        assertEquals(2, vips.size());
        assertTrue(vips.get(0).startsWith("240.240."), vips.toString());
        assertTrue(vips.get(1).startsWith("2001:2:0:"), vips.toString());
        assertTrue(DEFAULT.get(0).indexOf(vips.get(0)) >= 0);
        assertTrue(DEFAULT.get(1).indexOf(vips.get(1)) >= 0);
        assertEquals(vips, t.allocate("LEGACY.service.entry."), "the same host (case, trailing dot) keeps its VIPs");
    }

    @Test
    void sameHostsGiveSameVipsInAFreshTableWithoutPersistence() {
        List<String> hosts = new ArrayList<>();
        for (int i = 0; i < 500; i++) hosts.add("svc-" + i + ".example.com");
        VipTable a = new VipTable(DEFAULT);
        VipTable b = new VipTable(DEFAULT);
        hosts.forEach(a::allocate);
        hosts.forEach(b::allocate);
        assertEquals(a.allocations(), b.allocations(), "hash-based first choice is deterministic");
    }

    @Test
    void restoreKeepsEveryPersistedVipEvenIfHashesWouldDiffer() {
        VipTable first = new VipTable(DEFAULT);
        first.allocate("a.example.com");
        first.allocate("b.example.com");
        Map<String, List<String>> persisted = VipStore.decode(VipStore.encode(first.allocations()));

        VipTable restarted = new VipTable(DEFAULT);
        restarted.restore(persisted);
        // Allocated in the other order after the restart: the restored table still wins.
        assertEquals(first.allocations().get("b.example.com"), restarted.allocate("b.example.com"));
        assertEquals(first.allocations().get("a.example.com"), restarted.allocate("a.example.com"));
    }

    @Test
    void noVipIsEverHeldByTwoHostsAndCollisionsProbeLinearly() {
        // A /29 has 6 usable IPv4 addresses: collisions are certain.
        VipRange tiny = VipRange.parse("10.0.0.0/29");
        VipTable t = new VipTable(List.of(tiny));
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 6; i++) {
            List<String> v = t.allocate("h" + i + ".example");
            assertEquals(1, v.size());
            assertTrue(seen.add(v.get(0)), "VIP " + v.get(0) + " handed out twice");
            assertFalse(v.get(0).equals("10.0.0.0") || v.get(0).equals("10.0.0.7"), "network/broadcast never used");
        }
        assertEquals(0, t.exhaustions());
    }

    @Test
    void exhaustionIsCountedAndTheHostGetsNoVipFromThatRange() {
        VipTable t = new VipTable(List.of(VipRange.parse("10.0.0.0/30"), VipRange.parse("fd00::/120")));
        t.allocate("one.example");
        t.allocate("two.example"); // /30 has 2 usable addresses
        List<String> third = t.allocate("three.example");
        assertEquals(1, t.exhaustions());
        assertEquals(1, third.size(), "still gets its IPv6 VIP");
        assertTrue(third.get(0).startsWith("fd00:"), third.toString());
    }

    @Test
    void aGoneHostIsFreedAndOnlyThenItsVipCanBeReused() {
        VipRange one = VipRange.parse("10.0.0.0/30"); // two usable
        VipTable t = new VipTable(List.of(one));
        String a = t.allocate("a.example").get(0);
        String b = t.allocate("b.example").get(0);
        assertNotEquals(a, b);
        assertTrue(t.allocate("c.example").isEmpty(), "full while a and b exist");

        assertEquals(Set.of("a.example"), t.retainOnly(List.of("b.example", "c.example")));
        assertEquals(List.of(b), t.allocate("b.example"), "survivors keep their VIP");
        assertEquals(List.of(a), t.allocate("c.example"), "the freed VIP is the only one left");
        assertFalse(t.allocations().containsKey("a.example"));
    }

    @Test
    void restoreDropsAddressesOutsideTheRangesAndDuplicates() {
        VipTable t = new VipTable(DEFAULT);
        t.restore(Map.of("x.example", List.of("10.1.2.3"), "y.example", List.of("240.240.0.9"), "z.example", List.of("240.240.0.9")));
        Map<String, List<String>> all = t.allocations();
        assertFalse(all.containsKey("x.example"), "outside every range: re-allocated on next use");
        assertEquals(1, all.values().stream().filter(v -> v.contains("240.240.0.9")).count(), "one holder only");
        List<String> x = t.allocate("x.example");
        assertTrue(x.get(0).startsWith("240.240."));
    }

    @Test
    void badRangesNameTheProblem() {
        assertThrows(IllegalArgumentException.class, () -> VipRange.parse("240.240.0.0"));
        assertThrows(IllegalArgumentException.class, () -> VipRange.parse("240.240.0.0/33"));
        assertThrows(IllegalArgumentException.class, () -> VipRange.parse("example.com/16"));
        assertThrows(IllegalArgumentException.class, () -> VipRange.parse("10.0.0.0/32"));
        VipRange v6 = VipRange.parse("2001:2::/48");
        assertEquals(1L << 62, v6.size(), "capped");
        assertEquals("2001:2:0:0:0:0:0:1", v6.addressAt(0));
    }

    @Test
    void neverChoosesAnAddressIstioHoldsAndGivesOneUpWhenIstioTakesIt() {
        VipTable plain = new VipTable(DEFAULT);
        List<String> first = plain.allocate("api.example.com");
        // Istio holds exactly the addresses the hash would pick first: the probe moves past them.
        Set<String> held = new HashSet<>(first);
        VipTable t = new VipTable(DEFAULT);
        List<String> chosen = t.allocate("api.example.com", held::contains);
        assertEquals(2, chosen.size());
        for (String ip : chosen) assertFalse(held.contains(ip), "own VIP " + ip + " is one Istio holds");
        // An allocation Istio later takes is given up and replaced at the host's next allocation.
        Set<String> nowHeld = Set.of(chosen.get(0));
        List<String> moved = t.allocate("api.example.com", nowHeld::contains);
        assertFalse(moved.contains(chosen.get(0)), moved.toString());
        assertTrue(moved.contains(chosen.get(1)), "the address Istio does not hold is kept");
        assertEquals(moved, t.allocations().get("api.example.com"));
        // Without a clash nothing moves.
        assertEquals(moved, t.allocate("api.example.com", ip -> false));
    }
}
