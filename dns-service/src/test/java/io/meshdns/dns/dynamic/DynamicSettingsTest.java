package io.meshdns.dns.dynamic;

import io.meshdns.dns.InvalidConfigException;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.Name;

import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bad dynamic-zone config fails at start with a message that starts with the key. */
class DynamicSettingsTest {
    static final String KEY = "k1:hmac-sha256:c2VjcmV0LXNlY3JldC1zZWNyZXQ=";

    static DynamicConfig config(List<String> zones, List<String> keys, String journal, List<String> allow) {
        return config(zones, keys, journal, allow, null);
    }

    static DynamicConfig config(List<String> zones, List<String> keys, String journal, List<String> allow,
                                String allowTruncatedMac) {
        return new DynamicConfig() {
            public Optional<List<String>> dynamicZones() {
                return Optional.ofNullable(zones);
            }

            public Optional<List<String>> tsigKeys() {
                return Optional.ofNullable(keys);
            }

            public Optional<String> journalDir() {
                return Optional.ofNullable(journal);
            }

            public Dynamic dynamic() {
                return () -> Optional.ofNullable(allow);
            }

            public Tsig tsig() {
                return () -> Optional.ofNullable(allowTruncatedMac);
            }
        };
    }

    static String failure(DynamicConfig c) {
        return assertThrows(InvalidConfigException.class, () -> DynamicSettings.from(c)).getMessage();
    }

    @Test
    void validConfigParsesEveryAlgorithm() {
        DynamicSettings s = DynamicSettings.from(config(List.of("mesh.example"),
                List.of(KEY, "k2:HMAC-SHA512:c2VjcmV0", "k3:hmac-sha1:c2VjcmV0", "k4:hmac-md5:c2VjcmV0"),
                "/tmp/j", List.of("10.0.0.0/8")));
        assertTrue(s.enabled());
        assertEquals(4, s.keys().size());
        assertNotNull(s.keys().get(Name.fromConstantString("k2.")));
        assertEquals(1, s.allowTransfer().size());
    }

    @Test
    void nothingConfiguredIsDisabled() {
        assertFalse(DynamicSettings.from(config(null, null, null, null)).enabled());
    }

    @Test
    void everyBadValueNamesItsKey() {
        assertTrue(failure(config(List.of("mesh.example"), List.of(KEY), null, null)).startsWith("meshdns.dns.journal-dir:"));
        assertTrue(failure(config(List.of("mesh.example"), null, "/tmp/j", null)).startsWith("meshdns.dns.tsig-keys:"));
        String badAlg = failure(config(List.of("mesh.example"), List.of("mykey:hmac-sha999:c2VjcmV0"), "/tmp/j", null));
        assertTrue(badAlg.startsWith("meshdns.dns.tsig-keys:") && badAlg.contains("mykey"), badAlg);
        String badSecret = failure(config(null, List.of("mykey:hmac-sha256:not base64!"), null, null));
        assertTrue(badSecret.startsWith("meshdns.dns.tsig-keys:") && badSecret.contains("mykey"), badSecret);
        assertTrue(failure(config(null, List.of("justaname"), null, null)).contains("justaname"));
        assertTrue(failure(config(null, List.of(KEY, KEY), null, null)).contains("twice"));
        assertTrue(failure(config(List.of("bad..name"), List.of(KEY), "/tmp/j", null)).startsWith("meshdns.dns.dynamic-zones:"));
        assertTrue(failure(config(null, null, null, List.of("10.0.0.0/99"))).startsWith("meshdns.dns.dynamic.allow-transfer:"));
        assertTrue(failure(config(null, null, null, null, "ture")).startsWith("meshdns.dns.tsig.allow-truncated-mac:"));
    }

    @Test
    void truncatedMacsAreAllowedUnlessRefused() {
        assertTrue(DynamicSettings.from(config(null, List.of(KEY), null, null)).keys().allowTruncatedMac());
        assertFalse(DynamicSettings.from(config(null, List.of(KEY), null, null, "false")).keys().allowTruncatedMac());
    }
}
