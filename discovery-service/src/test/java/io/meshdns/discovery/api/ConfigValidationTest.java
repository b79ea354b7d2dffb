package io.meshdns.discovery.api;

import io.meshdns.discovery.config.DiscoveryConfig;
import io.meshdns.discovery.config.DiscoveryConfigValidator;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.smallrye.config.common.MapBackedConfigSource;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Invalid configuration is reported with the key's name (the validator fails the start with these). */
class ConfigValidationTest {
    private static List<String> problems(Map<String, String> values) {
        DiscoveryConfig c = new SmallRyeConfigBuilder().withMapping(DiscoveryConfig.class)
                .withConverter(java.time.Duration.class, 200, new io.quarkus.runtime.configuration.DurationConverter())
                .withSources(new MapBackedConfigSource("test", values, 500) {
                }).build().getConfigMapping(DiscoveryConfig.class);
        return DiscoveryConfigValidator.problems(c);
    }

    @Test
    void defaultsAreValid() {
        assertEquals(List.of(), problems(Map.of()));
    }

    @Test
    void badValuesNameTheirKey() {
        List<String> p = problems(Map.of(
                "meshdns.discovery.cluster-name", "East_1",
                "meshdns.discovery.batch-window", "0s",
                "meshdns.discovery.history-size", "0",
                "meshdns.discovery.watch.max-queued-bytes", "lots",
                "meshdns.discovery.watch.max-lag", "0s",
                "meshdns.discovery.manifest-dirs", Path.of("/nonexistent/meshdns").toString()));
        String all = String.join("\n", p);
        for (String key : List.of("meshdns.discovery.cluster-name", "meshdns.discovery.batch-window",
                "meshdns.discovery.history-size", "meshdns.discovery.manifest-dirs",
                "meshdns.discovery.watch.max-queued-bytes", "meshdns.discovery.watch.max-lag")) {
            assertTrue(all.contains(key), key + " in " + all);
        }
    }

    @Test
    void aHeartbeatThatTheHttpIdleTimeoutWouldOutlastIsRefused() {
        assertEquals(java.util.Optional.empty(), DiscoveryConfigValidator.idleTimeoutProblem(
                java.time.Duration.ofSeconds(15), java.time.Duration.ofSeconds(60)));
        String problem = DiscoveryConfigValidator.idleTimeoutProblem(java.time.Duration.ofSeconds(45),
                java.time.Duration.ofSeconds(60)).orElseThrow();
        assertTrue(problem.startsWith("meshdns.discovery.heartbeat-interval must be at most half of quarkus.http.idle-timeout"), problem);
        assertEquals(java.util.Optional.empty(), DiscoveryConfigValidator.idleTimeoutProblem(
                java.time.Duration.ofHours(1), java.time.Duration.ZERO), "no idle timeout cuts nothing");
    }
}
