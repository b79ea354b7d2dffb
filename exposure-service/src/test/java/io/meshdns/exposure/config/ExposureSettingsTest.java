package io.meshdns.exposure.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.meshdns.exposure.plan.Policy;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Bad or missing configuration fails at start with a message naming the key. */
class ExposureSettingsTest {

    static final Map<String, String> VALID = Map.of(
            "meshdns.exposure.policy", "upsert-only",
            "meshdns.exposure.rfc2136.host", "127.0.0.1",
            "meshdns.exposure.rfc2136.zones", "example.org",
            "meshdns.exposure.rfc2136.tsig-key-name", "k",
            "meshdns.exposure.rfc2136.tsig-secret", "c2VjcmV0c2VjcmV0c2VjcmV0");

    static ExposureSettings settings(Map<String, String> overrides, String... remove) {
        var props = new HashMap<>(VALID);
        props.putAll(overrides);
        for (String r : remove) props.remove(r);
        SmallRyeConfig config = new SmallRyeConfigBuilder().withMapping(ExposureConfig.class)
                .withConverter(java.time.Duration.class, 100, new io.quarkus.runtime.configuration.DurationConverter())
                .withSources(new PropertiesConfigSource(props, "test", 500)).build();
        return ExposureSettings.from(config.getConfigMapping(ExposureConfig.class));
    }

    static void failsNaming(String key, Map<String, String> overrides, String... remove) {
        Exception e = assertThrows(Exception.class, () -> settings(overrides, remove));
        assertTrue(e.getMessage().contains(key), "message names " + key + ": " + e.getMessage());
    }

    @Test
    void validConfig() {
        var s = settings(Map.of("meshdns.exposure.provider", "builtin",
                "meshdns.exposure.builtin.targets", "10.0.0.1:53,[fd00::1]:5353"));
        assertEquals(Policy.UPSERT_ONLY, s.policy());
        assertEquals(2, s.targets().size());
        assertEquals("fd00::1", s.targets().get(1).host());
        assertEquals(5353, s.targets().get(1).port());
    }

    @Test
    void invalidConfigNamesTheKey() {
        failsNaming("meshdns.exposure.policy", Map.of(), "meshdns.exposure.policy");
        failsNaming("meshdns.exposure.policy", Map.of("meshdns.exposure.policy", "yolo"));
        failsNaming("meshdns.exposure.rfc2136.host", Map.of(), "meshdns.exposure.rfc2136.host");
        failsNaming("meshdns.exposure.rfc2136.zones", Map.of(), "meshdns.exposure.rfc2136.zones");
        failsNaming("meshdns.exposure.rfc2136.tsig-algorithm", Map.of("meshdns.exposure.rfc2136.tsig-algorithm", "hmac-sha3"));
        failsNaming("meshdns.exposure.rfc2136.tsig-secret", Map.of("meshdns.exposure.rfc2136.tsig-secret", "not base64!"));
        failsNaming("meshdns.exposure.provider", Map.of("meshdns.exposure.provider", "route53"));
        failsNaming("meshdns.exposure.builtin.targets", Map.of("meshdns.exposure.provider", "builtin"));
        failsNaming("meshdns.exposure.builtin.targets", Map.of("meshdns.exposure.provider", "builtin", "meshdns.exposure.builtin.targets", "host-without-port"));
        failsNaming("meshdns.exposure.regex-domain-filter", Map.of("meshdns.exposure.regex-domain-filter", "(["));
        failsNaming("meshdns.exposure.owner-id", Map.of("meshdns.exposure.owner-id", "a,b"));
        failsNaming("meshdns.exposure.sources", Map.of("meshdns.exposure.sources", "service,gateway"));
    }
}
