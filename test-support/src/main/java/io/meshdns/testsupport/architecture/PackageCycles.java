package io.meshdns.testsupport.architecture;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.EvaluationResult;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;

import java.util.List;

/**
 * The layering rule, checked on compiled classes: packages import downward only, so no two packages of a
 * module reach each other through any chain of references (field, method, constructor, annotation, generic or
 * inline fully-qualified use all count). Each module's {@code PackageCyclesTest} calls {@link #assertNone}
 * with its root package; a cycle fails the build with the classes that close it.
 */
public final class PackageCycles {
    private PackageCycles() {
    }

    /** The cycles among the packages under {@code rootPackage} in the main (not test) classes on the class path. */
    public static List<String> find(String rootPackage) {
        return find(new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
                .importPackages(rootPackage), rootPackage);
    }

    /** The cycles among the packages under {@code rootPackage} in {@code classes}; each package is a slice of its own. */
    public static List<String> find(JavaClasses classes, String rootPackage) {
        EvaluationResult result = SlicesRuleDefinition.slices()
                .matching(rootPackage + ".(**)")
                .should().beFreeOfCycles()
                .allowEmptyShould(true)
                .evaluate(classes);
        return result.getFailureReport().getDetails();
    }

    /** Fails with every cycle found under {@code rootPackage}, or returns how many packages were checked. */
    public static int assertNone(String rootPackage) {
        JavaClasses classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
                .importPackages(rootPackage);
        if (classes.isEmpty()) {
            throw new AssertionError("no compiled classes under " + rootPackage + ": the check would prove nothing");
        }
        List<String> cycles = find(classes, rootPackage);
        if (!cycles.isEmpty()) {
            throw new AssertionError("package cycles under " + rootPackage + " (packages must import downward only):\n"
                    + String.join("\n", cycles));
        }
        return (int) classes.stream().map(JavaClass::getPackageName).distinct().count();
    }
}
