package io.meshdns.dns.kubernetes;

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

    @Test
    void buildersCompileInKindOrderAndServiceEntryHostsAfterServiceNames() {
        assertEquals(ORDER, classes(MeshKinds.IN_COMPILE_ORDER));
        List<KindRecords<?>> reversed = new ArrayList<>(MeshKinds.IN_COMPILE_ORDER);
        Collections.reverse(reversed);
        assertEquals(ORDER, classes(MeshKinds.inCompileOrder(reversed)));
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
}
