package io.meshdns.dns.forward;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

class ForwardPolicyTest {
    private static final List<String> ABC = List.of("a", "b", "c");

    @Test
    void sequentialAlwaysStartsAtTheFirst() {
        for (long tick = 0; tick < 5; tick++) {
            assertEquals(ABC, ForwardPolicy.SEQUENTIAL.order(ABC, tick, n -> 0, s -> true));
        }
    }

    @Test
    void roundRobinRotatesTheStart() {
        assertEquals(List.of("a", "b", "c"), ForwardPolicy.ROUND_ROBIN.order(ABC, 0, n -> 0, s -> true));
        assertEquals(List.of("b", "c", "a"), ForwardPolicy.ROUND_ROBIN.order(ABC, 1, n -> 0, s -> true));
        assertEquals(List.of("c", "a", "b"), ForwardPolicy.ROUND_ROBIN.order(ABC, 2, n -> 0, s -> true));
        assertEquals(List.of("a", "b", "c"), ForwardPolicy.ROUND_ROBIN.order(ABC, 3, n -> 0, s -> true));
    }

    @Test
    void randomProducesEveryPermutation() {
        Random random = new Random(42);
        Set<List<String>> seen = new HashSet<>();
        for (int i = 0; i < 600; i++) {
            List<String> order = ForwardPolicy.RANDOM.order(ABC, i, random::nextInt, s -> true);
            assertEquals(Set.copyOf(ABC), Set.copyOf(order));
            seen.add(order);
        }
        assertEquals(6, seen.size(), "all 3! orders appear");
    }

    @Test
    void downUpstreamsAreSkipped() {
        assertEquals(List.of("a", "c"), ForwardPolicy.SEQUENTIAL.order(ABC, 0, n -> 0, s -> !s.equals("b")));
        assertEquals(List.of("c", "a"), ForwardPolicy.ROUND_ROBIN.order(ABC, 1, n -> 0, s -> !s.equals("b")));
    }

    @Test
    void whenAllAreDownOneRandomIsTried() {
        assertEquals(List.of("c"), ForwardPolicy.SEQUENTIAL.order(ABC, 0, n -> 2, s -> false));
        assertEquals(List.of("a"), ForwardPolicy.ROUND_ROBIN.order(ABC, 0, n -> 0, s -> false));
        assertTrue(ForwardPolicy.RANDOM.order(List.of(), 0, n -> 0, s -> true).isEmpty());
    }

    @Test
    void parsesTheConfigValues() {
        assertEquals(ForwardPolicy.ROUND_ROBIN, ForwardPolicy.parse("round-robin"));
        assertEquals(ForwardPolicy.SEQUENTIAL, ForwardPolicy.parse("Sequential"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ForwardPolicy.parse("fastest"));
        assertTrue(e.getMessage().startsWith("meshdns.dns.forward.policy"), e.getMessage());
    }
}
