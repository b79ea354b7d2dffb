package io.meshdns.dnsjava.nativeimage.deployment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.oracle.svm.core.annotate.Delete;
import com.oracle.svm.core.annotate.Substitute;
import com.oracle.svm.core.annotate.TargetClass;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The GraalVM substitutions of the runtime module name classes, fields and methods of this dnsjava version
 * (native-image rejects a substitution whose target does not exist; a dnsjava upgrade that renames one must
 * fail here, not only in a native build nobody runs on these machines).
 */
class SubstitutionTargetsTest {

    private static final String PACKAGE = "io.meshdns.dnsjava.nativeimage.";
    private static final List<String> SUBSTITUTION_CLASSES = List.of(
            "Target_org_xbill_DNS_config_WindowsResolverConfigProvider",
            "Target_org_xbill_DNS_config_WindowsResolverConfigProvider_InnerWindowsResolverConfigProvider");

    @Test
    void everySubstitutionNamesAnExistingTarget() throws Exception {
        Map<Class<?>, Class<?>> targets = new java.util.LinkedHashMap<>();
        for (String simpleName : SUBSTITUTION_CLASSES) {
            Class<?> substitution = Class.forName(PACKAGE + simpleName, false, getClass().getClassLoader());
            TargetClass target = substitution.getAnnotation(TargetClass.class);
            assertTrue(target != null, simpleName + " has @TargetClass");
            targets.put(substitution, Class.forName(target.className(), false, getClass().getClassLoader()));
        }
        List<String> checked = new ArrayList<>();
        for (Map.Entry<Class<?>, Class<?>> e : targets.entrySet()) {
            Class<?> substitution = e.getKey();
            Class<?> original = e.getValue();
            for (Method m : substitution.getDeclaredMethods()) {
                if (m.isAnnotationPresent(Substitute.class)) {
                    Method target = original.getDeclaredMethod(m.getName(), m.getParameterTypes());
                    assertEquals(target.getReturnType(), m.getReturnType(), m.toString());
                    checked.add(original.getSimpleName() + "." + m.getName());
                }
            }
            for (Constructor<?> c : substitution.getDeclaredConstructors()) {
                if (c.isAnnotationPresent(Substitute.class)) {
                    original.getDeclaredConstructor(c.getParameterTypes());
                    checked.add(original.getSimpleName() + ".<init>");
                }
            }
            for (Field f : substitution.getDeclaredFields()) {
                if (f.isAnnotationPresent(Delete.class)) {
                    Field target = original.getDeclaredField(f.getName());
                    assertEquals(targets.get(f.getType()), target.getType(), "type of the deleted field " + f.getName());
                    checked.add(original.getSimpleName() + "." + f.getName());
                }
            }
        }
        assertTrue(checked.containsAll(List.of("WindowsResolverConfigProvider.<init>",
                "WindowsResolverConfigProvider.isEnabled", "WindowsResolverConfigProvider.initialize",
                "WindowsResolverConfigProvider.servers", "WindowsResolverConfigProvider.searchPaths",
                "WindowsResolverConfigProvider.inner")), checked.toString());
        Class<?> inner = Class.forName(PACKAGE + SUBSTITUTION_CLASSES.get(1), false, getClass().getClassLoader());
        assertTrue(inner.isAnnotationPresent(Delete.class), "the JNA-backed inner provider is deleted");
    }

    @Test
    void theSubstitutedMethodsAreEveryMethodThatReachesTheInnerProvider() throws Exception {
        // Every public method of the original delegates to the deleted inner provider; one left unsubstituted
        // would reach a deleted class in the image.
        Class<?> original = Class.forName("org.xbill.DNS.config.WindowsResolverConfigProvider", false, getClass().getClassLoader());
        Class<?> substitution = Class.forName(PACKAGE + SUBSTITUTION_CLASSES.get(0), false, getClass().getClassLoader());
        for (Method m : original.getDeclaredMethods()) {
            if (m.isSynthetic() || java.lang.reflect.Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            Method s = substitution.getDeclaredMethod(m.getName(), m.getParameterTypes());
            assertTrue(s.isAnnotationPresent(Substitute.class), m.getName());
        }
        assertFalse(original.getDeclaredConstructors().length == 0);
    }
}
