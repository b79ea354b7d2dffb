package io.meshdns.model.startup;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ConfigProblemTest {
    private static final Map<String, String> SET = Map.of("meshdns.dns.bogus-key", "1", "meshdns.discovery.history-size", "0");

    private static Optional<String> valueOf(String key) {
        return Optional.ofNullable(SET.get(key));
    }

    /** SmallRye's exception for an undeclared key under a mapped prefix: its first line alone names nothing. */
    private static final class ConfigValidationException extends RuntimeException {
        ConfigValidationException(String message) {
            super(message);
        }
    }

    @Test
    void anUnknownKeyUnderAMappedPrefixIsNamed() {
        Throwable failure = new RuntimeException("Failed to start quarkus", new ConfigValidationException(
                "Configuration validation failed:\n\tSRCFG00050: meshdns.dns.bogus-key in SysPropConfigSource does not map to any root"));
        List<ConfigProblem> problems = ConfigProblem.findAll(failure, ConfigProblemTest::valueOf);
        assertEquals(List.of(new ConfigProblem("meshdns.dns.bogus-key", "1",
                "no such setting (set in a system property): check its spelling against --help")), problems);
    }

    @Test
    void everyUnknownKeyIsNamedAndTheFileIsSaid() {
        Throwable failure = new ConfigValidationException("Configuration validation failed:\n"
                + "\tSRCFG00050: meshdns.exposure.polcy in PropertiesConfigSource[source=file:/etc/meshdns/application.properties] does not map to any root\n"
                + "\tSRCFG00050: meshdns.exposure.sorces in EnvConfigSource does not map to any root");
        List<ConfigProblem> problems = ConfigProblem.findAll(failure, k -> Optional.empty());
        assertEquals(2, problems.size(), problems.toString());
        assertEquals("meshdns: invalid configuration: meshdns.exposure.polcy=<unset>: no such setting "
                + "(set in /etc/meshdns/application.properties): check its spelling against --help", problems.get(0).line());
        assertEquals("meshdns.exposure.sorces", problems.get(1).key());
    }

    @Test
    void aValidatorsMessageIsKeptWholeSemicolonsIncluded() {
        Throwable failure = new IllegalArgumentException(
                "meshdns.dns.node-local.addresses: 169.254.20.10 is listed twice; each address may appear once");
        ConfigProblem p = ConfigProblem.find(failure, k -> Optional.of("169.254.20.10,169.254.20.10")).orElseThrow();
        assertEquals("169.254.20.10 is listed twice; each address may appear once", p.why());
    }

    @Test
    void severalProblemsOfOneValidatorAreOneLineEach() {
        Throwable failure = new IllegalArgumentException("invalid discovery configuration: "
                + "meshdns.discovery.history-size must be at least 1, got 0\n"
                + "meshdns.discovery.shared-token is blank");
        List<ConfigProblem> problems = ConfigProblem.findAll(failure, ConfigProblemTest::valueOf);
        assertEquals(List.of("meshdns.discovery.history-size", "meshdns.discovery.shared-token"),
                problems.stream().map(ConfigProblem::key).toList());
        assertEquals("must be at least 1, got 0", problems.get(0).why());
    }
}
