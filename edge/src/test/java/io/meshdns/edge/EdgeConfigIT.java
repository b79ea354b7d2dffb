package io.meshdns.edge;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad configuration of either half stops the all-in-one process with a non-zero exit and a message naming the
 * key: both services' start-up validation runs in the combined app (one case per half; the services' own tests
 * cover the other keys).
 */
class EdgeConfigIT {

    static Stream<Arguments> badConfigs() {
        return Stream.of(
                Arguments.of(List.of("meshdns.discovery.manifest-dirs=target/no-such-dir"),
                        "meshdns.discovery.manifest-dirs", "target/no-such-dir"),
                Arguments.of(List.of("meshdns.discovery.manifest-dirs=examples/clusters", "meshdns.dns.discovery-url=ftp://edge"),
                        "meshdns: invalid configuration: meshdns.dns.discovery-url=ftp://edge: ", "ftp://edge"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("badConfigs")
    void invalidConfigurationFailsTheStartNamingTheKey(List<String> properties, String key, String detail) throws Exception {
        try (EdgeProcess p = EdgeProcess.start(properties)) {
            int exit = p.awaitExit(Duration.ofSeconds(90));
            assertNotEquals(0, exit, p.output());
            assertTrue(p.output().contains(key), "names " + key + ":\n" + p.output());
            assertTrue(p.output().contains(detail), "shows " + detail + ":\n" + p.output());
        }
    }
}
