package io.meshdns.dns;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.meshdns.testsupport.ImageHeapCheck;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URL;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * dnsjava-native is wired into dns-service: its build step ran for this application (the listing of what a native
 * build initialises at run time is in it) and dnsjava's resolver services are gone from the class path the
 * application runs on, so dnsjava can never become the JDK's host-name resolver. The packaged jars of every
 * service are checked by integration-tests' NativeImageReadinessProcessTest.
 */
@QuarkusTest
class NativeImageReadinessTest {

    @Test
    void theBuildClassifiedDnsjavasResolverSideForRunTimeInitialisation() throws Exception {
        Set<String> runtime = ImageHeapCheck.runtimeClassesListed(Thread.currentThread().getContextClassLoader());
        assertTrue(runtime.containsAll(List.of("org.xbill.DNS.Lookup", "org.xbill.DNS.ResolverConfig",
                "org.xbill.DNS.Header", "org.xbill.DNS.SimpleResolver", "org.xbill.DNS.ExtendedResolver",
                "org.xbill.DNS.config.ResolvConfResolverConfigProvider")), runtime.toString());
        // Only classes the application can load are named: dnsjava's InetAddressResolver only on a JDK that has the
        // interface (18+); the JNA-backed Windows provider only where JNA is on the class path (the test class path
        // has it, a packaged application does not: NativeImageReadinessProcessTest).
        assertEquals(Runtime.version().feature() >= 18, runtime.contains("org.xbill.DNS.spi.DnsjavaInetAddressResolver"),
                runtime.toString());
        for (String valueClass : List.of("org.xbill.DNS.Name", "org.xbill.DNS.Type", "org.xbill.DNS.DClass",
                "org.xbill.DNS.TSIG", "org.xbill.DNS.Message", "org.xbill.DNS.Record")) {
            assertFalse(runtime.contains(valueClass), valueClass + " stays build-time");
        }
    }

    @Test
    void dnsjavasResolverServicesAreNotOnTheApplicationClassPath() throws Exception {
        ClassLoader app = Thread.currentThread().getContextClassLoader();
        assertNotNull(app.getResource("org/xbill/DNS/Name.class"), "dnsjava itself is there");
        for (String service : List.of("META-INF/services/java.net.spi.InetAddressResolverProvider",
                "META-INF/services/sun.net.spi.nameservice.NameServiceDescriptor")) {
            List<URL> found = Collections.list(app.getResources(service));
            assertEquals(List.of(), found.stream().filter(u -> u.toString().contains("dnsjava")).toList(), service);
        }
    }
}
