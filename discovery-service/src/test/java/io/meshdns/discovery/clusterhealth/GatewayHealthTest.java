package io.meshdns.discovery.clusterhealth;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GatewayHealthTest {
    @Test
    void goesDownAfterThreeFailuresInARowAndUpAfterTwoSuccesses() {
        GatewayHealth h = GatewayHealth.initial(0);
        assertTrue(h.healthy(), "not probed yet: fail-open");
        h = h.after(false, 3, 2, 1).after(false, 3, 2, 2);
        assertTrue(h.healthy(), "two failures are not enough");
        h = h.after(false, 3, 2, 3);
        assertFalse(h.healthy());
        assertEquals(3, h.sinceEpochMillis());
        h = h.after(true, 3, 2, 4);
        assertFalse(h.healthy(), "one success is not enough");
        h = h.after(true, 3, 2, 5);
        assertTrue(h.healthy());
        assertEquals(5, h.sinceEpochMillis());
    }

    @Test
    void aFlappingGatewayDoesNotFlapTheVerdict() {
        GatewayHealth h = GatewayHealth.initial(0);
        for (int i = 1; i <= 100; i++) {
            h = h.after(i % 2 == 0, 3, 2, i); // down, up, down, up...: never three failures in a row
            assertTrue(h.healthy(), "probe " + i);
        }
        h = h.after(false, 3, 2, 101).after(false, 3, 2, 102).after(false, 3, 2, 103);
        assertFalse(h.healthy());
        for (int i = 104; i <= 200; i++) {
            h = h.after(i % 2 == 0, 3, 2, i); // up, down, up...: never two successes in a row
            assertFalse(h.healthy(), "probe " + i);
        }
    }
}
