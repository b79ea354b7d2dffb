package io.meshdns.dnsjava.nativeimage.deployment;

import io.meshdns.model.CatalogEntry;
import io.meshdns.model.CatalogSnapshot;
import io.meshdns.model.EndpointAddress;
import io.meshdns.model.Kind;
import io.meshdns.model.ObjectRef;
import io.meshdns.model.PortSpec;
import io.meshdns.model.ServiceType;
import io.meshdns.model.WireFormat;
import org.junit.jupiter.api.Test;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WireModelTypesTest {

    @Test
    void everyKindsEntryAndWhatTheEntriesHoldAreFoundFromTheMessages() {
        Set<String> types = WireModelTypes.of(getClass().getClassLoader()).orElseThrow();
        for (Class<?> kindEntry : CatalogEntry.class.getPermittedSubclasses()) {
            assertTrue(types.contains(kindEntry.getName()), kindEntry + " missing from " + types);
        }
        for (Class<?> held : new Class<?>[]{CatalogEntry.class, CatalogSnapshot.class, ObjectRef.class, EndpointAddress.class,
                PortSpec.class, Kind.class, ServiceType.class}) {
            assertTrue(types.contains(held.getName()), held + " missing from " + types);
        }
        // The mapper and the other helpers of the package are not wire types: nothing reaches them.
        assertFalse(types.contains(WireFormat.class.getName()), types.toString());
        types.forEach(t -> assertTrue(t.startsWith(WireModelTypes.PACKAGE + "."), t));
        assertEquals(CatalogEntry.class.getPermittedSubclasses().length + 10, types.size(), types.toString());
    }

    @Test
    void anApplicationWithoutTheModelRegistersNothing() throws Exception {
        try (URLClassLoader bare = new URLClassLoader(new URL[0], ClassLoader.getPlatformClassLoader())) {
            assertTrue(WireModelTypes.of(bare).isEmpty());
        }
    }
}
