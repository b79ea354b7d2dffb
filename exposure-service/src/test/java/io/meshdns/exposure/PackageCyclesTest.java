package io.meshdns.exposure;

import io.meshdns.testsupport.architecture.PackageCycles;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The layering rule (ARCHITECTURE.md): packages under io.meshdns.exposure import downward only. */
class PackageCyclesTest {
    @Test
    void noPackageImportsAPackageThatImportsIt() {
        assertTrue(PackageCycles.assertNone("io.meshdns.exposure") > 1, "more than one package checked");
    }
}
