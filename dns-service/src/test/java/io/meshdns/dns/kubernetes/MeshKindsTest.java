package io.meshdns.dns.kubernetes;

import io.meshdns.model.Kind;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The builders' compile order comes from their kinds and what they compile after, whatever order they are found in. */
class MeshKindsTest {
    private static final List<Class<?>> ORDER = List.of(NamespaceRecords.class, ServiceNameRecords.class, PodRecords.class,
            ServiceEntryRecords.class);

    /** The order these four compiled in before the builders were collected (a new kind's builder may go anywhere). */
    @Test
    void buildersCompileInKindOrderAndServiceEntryHostsAfterServiceNames() {
        assertEquals(ORDER, these(MeshKinds.IN_COMPILE_ORDER));
        List<KindRecords<?>> reversed = new ArrayList<>(MeshKinds.IN_COMPILE_ORDER);
        Collections.reverse(reversed);
        assertEquals(classes(MeshKinds.IN_COMPILE_ORDER), classes(MeshKinds.inCompileOrder(reversed)), "whatever order javac lists them in");
    }

    /** Every builder compiles after the builders of the kinds it names. */
    @Test
    void everyBuilderCompilesAfterWhatItReads() {
        List<KindRecords<?>> order = MeshKinds.IN_COMPILE_ORDER;
        for (int i = 0; i < order.size(); i++) {
            for (Kind kind : order.get(i).compiledAfter()) {
                int before = -1;
                for (int j = 0; j < order.size(); j++) if (order.get(j).kinds().contains(kind)) before = j;
                assertTrue(before < i, order.get(i).getClass().getSimpleName() + " compiles after " + kind + "'s builder");
            }
        }
    }

    @Test
    void aKindWithoutABuilderOrWithTwoStopsTheTable() {
        List<KindRecords<?>> withoutPods = new ArrayList<>(MeshKinds.IN_COMPILE_ORDER);
        withoutPods.removeIf(b -> b instanceof PodRecords);
        String missing = assertThrows(IllegalStateException.class, () -> MeshKinds.inCompileOrder(withoutPods)).getMessage();
        assertTrue(missing.startsWith("POD has no record builder"), missing);

        List<KindRecords<?>> twice = new ArrayList<>(MeshKinds.IN_COMPILE_ORDER);
        twice.add(new PodRecords());
        assertEquals("POD has two record builders",
                assertThrows(IllegalStateException.class, () -> MeshKinds.inCompileOrder(twice)).getMessage());
    }

    private static List<Class<?>> classes(List<KindRecords<?>> builders) {
        return builders.stream().<Class<?>>map(Object::getClass).toList();
    }

    private static List<Class<?>> these(List<KindRecords<?>> builders) {
        return classes(builders).stream().filter(ORDER::contains).toList();
    }
}
