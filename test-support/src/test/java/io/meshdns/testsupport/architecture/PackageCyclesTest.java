package io.meshdns.testsupport.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The checker itself: it must see a cycle made through an inline fully-qualified name, and only that one. */
class PackageCyclesTest {
    private static final String FIXTURE = "io.meshdns.testsupport.architecture.fixture";

    @Test
    void findsTheCycleBetweenUpperAndLower() {
        JavaClasses classes = new ClassFileImporter().importPackages(FIXTURE);
        List<String> cycles = PackageCycles.find(classes, FIXTURE);
        assertEquals(1, cycles.size(), cycles.toString());
        assertTrue(cycles.get(0).contains("upper") && cycles.get(0).contains("lower"), cycles.get(0));
        assertTrue(!cycles.get(0).contains("Base"), cycles.get(0));
    }

    @Test
    void aTreeWithoutTheLoopIsClean() {
        String base = FIXTURE + ".base";
        assertEquals(List.of(), PackageCycles.find(new ClassFileImporter().importPackages(base), FIXTURE));
    }
}
