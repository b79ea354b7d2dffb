package io.meshdns.exposure.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.meshdns.exposure.provider.Provider;
import io.meshdns.exposure.sync.Reconciler;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The reconciler talks to the registry only: the registry never hands its provider out. */
class RegistrySeamTest {

    @Test
    void theRegistryDoesNotLeakItsProvider() {
        List<String> leaks = Arrays.stream(Registry.class.getMethods())
                .filter(m -> Provider.class.isAssignableFrom(m.getReturnType()))
                .map(Method::getName).toList();
        assertEquals(List.of(), leaks);
    }

    @Test
    void theReconcilerHoldsNoProvider() {
        List<String> held = Arrays.stream(Reconciler.class.getDeclaredFields())
                .filter(f -> Provider.class.isAssignableFrom(f.getType())).map(f -> f.getName()).toList();
        assertEquals(List.of(), held);
        List<String> returned = Arrays.stream(Reconciler.class.getMethods())
                .filter(m -> Provider.class.isAssignableFrom(m.getReturnType())).map(Method::getName).toList();
        assertEquals(List.of(), returned);
    }
}
