package io.meshdns.model;

import io.meshdns.testsupport.architecture.PackageCycles;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The layering rule (ARCHITECTURE.md): packages under io.meshdns.model import downward only. */
class PackageCyclesTest {
    @Test
    void noPackageImportsAPackageThatImportsIt() {
        assertTrue(PackageCycles.assertNone("io.meshdns.model") > 1, "more than one package checked");
    }
}
