package io.meshdns.discovery.vip;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code meshdns.discovery.vip-source}: the three values parse, anything else fails naming the key. */
class VipSourceTest {
    @Test
    void valuesParseAndABadOneNamesTheKey() {
        assertEquals(CentralVipAllocator.VipSource.ISTIO_FIRST, CentralVipAllocator.VipSource.parse("istio-first"));
        assertEquals(CentralVipAllocator.VipSource.OWN, CentralVipAllocator.VipSource.parse(" own "));
        assertEquals(CentralVipAllocator.VipSource.ISTIO_ONLY, CentralVipAllocator.VipSource.parse("Istio-Only"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CentralVipAllocator.VipSource.parse("istio"));
        assertTrue(e.getMessage().startsWith("meshdns.discovery.vip-source: "), e.getMessage());
    }
}
