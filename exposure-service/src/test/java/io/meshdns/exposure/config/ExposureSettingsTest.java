package io.meshdns.exposure.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.meshdns.exposure.plan.Policy;
import io.meshdns.exposure.provider.ProviderFactory;
import io.meshdns.exposure.provider.builtin.BuiltinConfig;
import io.meshdns.exposure.provider.builtin.BuiltinProviderFactory;
import io.meshdns.exposure.provider.coredns.CorednsConfig;
import io.meshdns.exposure.provider.coredns.CorednsProviderFactory;
import io.meshdns.exposure.provider.pdns.PdnsConfig;
import io.meshdns.exposure.provider.pdns.PdnsProviderFactory;
import io.meshdns.exposure.provider.rfc2136.Rfc2136Config;
import io.meshdns.exposure.provider.rfc2136.Rfc2136ProviderFactory;
import io.meshdns.exposure.provider.webhook.WebhookConfig;
import io.meshdns.exposure.provider.webhook.WebhookProviderFactory;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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
                .withMapping(Rfc2136Config.class).withMapping(BuiltinConfig.class).withMapping(WebhookConfig.class)
                .withMapping(PdnsConfig.class).withMapping(CorednsConfig.class)
                .withConverter(java.time.Duration.class, 100, new io.quarkus.runtime.configuration.DurationConverter())
                .withSources(new PropertiesConfigSource(props, "test", 500)).build();
        return ExposureSettings.from(config.getConfigMapping(ExposureConfig.class), factories(config));
    }

    /** The factories Quarkus would inject (each registered provider with its own mapping). */
    static List<ProviderFactory> factories(SmallRyeConfig c) {
        return List.of(new Rfc2136ProviderFactory(c.getConfigMapping(Rfc2136Config.class)),
                new BuiltinProviderFactory(c.getConfigMapping(Rfc2136Config.class), c.getConfigMapping(BuiltinConfig.class)),
                new WebhookProviderFactory(c.getConfigMapping(WebhookConfig.class)),
                new PdnsProviderFactory(c.getConfigMapping(PdnsConfig.class)),
                new CorednsProviderFactory(c.getConfigMapping(CorednsConfig.class)));
    }

    /**
     * Each row: the key the failure must name; the keys set over {@link #VALID} ({@code key=value}, several apart by
     * {@code ;}); the key removed from it, if any.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "meshdns.exposure.policy                    |  | meshdns.exposure.policy",
            "meshdns.exposure.policy                    | meshdns.exposure.policy=yolo |",
            "meshdns.exposure.rfc2136.host              |  | meshdns.exposure.rfc2136.host",
            "meshdns.exposure.rfc2136.zones             |  | meshdns.exposure.rfc2136.zones",
            "meshdns.exposure.rfc2136.tsig-algorithm    | meshdns.exposure.rfc2136.tsig-algorithm=hmac-sha3 |",
            "meshdns.exposure.rfc2136.tsig-secret       | meshdns.exposure.rfc2136.tsig-secret=not base64! |",
            "meshdns.exposure.provider                  | meshdns.exposure.provider=route53 |",
            "meshdns.exposure.builtin.targets           | meshdns.exposure.provider=builtin |",
            "meshdns.exposure.builtin.targets           | meshdns.exposure.provider=builtin; meshdns.exposure.builtin.targets=host-without-port |",
            "meshdns.exposure.regex-domain-filter       | meshdns.exposure.regex-domain-filter=([ |",
            "meshdns.exposure.owner-id                  | meshdns.exposure.owner-id=a,b |",
            "meshdns.exposure.sources                   | meshdns.exposure.sources=service,gateway |",
            "meshdns.exposure.default-ttl               | meshdns.exposure.default-ttl=4294967295 |",
            "meshdns.exposure.adopt-owners              | meshdns.exposure.owner-id=me; meshdns.exposure.adopt-owners=old,me |",
            "meshdns.exposure.rfc2136.min-ttl           | meshdns.exposure.rfc2136.min-ttl=-5s |",
            "meshdns.exposure.rfc2136.batch-change-size | meshdns.exposure.rfc2136.batch-change-size=0 |",
            "meshdns.exposure.webhook.url               | meshdns.exposure.provider=webhook |",
            "meshdns.exposure.webhook.url               | meshdns.exposure.provider=webhook; meshdns.exposure.webhook.url=ftp://x |",
            "meshdns.exposure.pdns.server               | meshdns.exposure.provider=pdns; meshdns.exposure.pdns.api-key=k |",
            "meshdns.exposure.pdns.api-key              | meshdns.exposure.provider=pdns; meshdns.exposure.pdns.server=http://127.0.0.1:8081 |",
            "meshdns.exposure.coredns.etcd-urls         | meshdns.exposure.provider=coredns; meshdns.exposure.coredns.etcd-urls=127.0.0.1:2379 |",
            "meshdns.exposure.coredns.prefix            | meshdns.exposure.provider=coredns; meshdns.exposure.coredns.prefix=skydns |",
            "meshdns.exposure.txt-encrypt-aes-key       | meshdns.exposure.txt-encrypt-enabled=true |",
            "meshdns.exposure.txt-encrypt-aes-key       | meshdns.exposure.txt-encrypt-enabled=true; meshdns.exposure.txt-encrypt-aes-key=too-short |",
            "meshdns.exposure.events-emit               | meshdns.exposure.events-emit=RecordReady,RecordGone |",
            "meshdns.exposure.default-targets           | meshdns.exposure.default-targets=192.0.2.1,not a name |",
            "meshdns.exposure.force-default-targets     | meshdns.exposure.force-default-targets=true |",
            "meshdns.exposure.fqdn-template             | meshdns.exposure.fqdn-template={{.Spec.ClusterIP}}.example.org |",
            "meshdns.exposure.fqdn-template             | meshdns.exposure.fqdn-template={{.Name}.example.org |",
            "meshdns.exposure.annotation-prefix         | meshdns.exposure.annotation-prefix=dns.example.com |",
    })
    void invalidConfigNamesTheKey(String key, String overrides, String removed) {
        var set = new HashMap<String, String>();
        if (overrides != null) {
            for (String setting : overrides.split(";")) {
                String[] keyValue = setting.trim().split("=", 2);
                set.put(keyValue[0], keyValue[1]);
            }
        }
        String[] remove = removed == null ? new String[0] : new String[] {removed};
        Exception e = assertThrows(Exception.class, () -> settings(set, remove));
        assertTrue(e.getMessage().contains(key), "message names " + key + ": " + e.getMessage());
    }

    @Test
    void validConfig() {
        var s = settings(Map.of("meshdns.exposure.provider", "builtin",
                "meshdns.exposure.builtin.targets", "10.0.0.1:53,[fd00::1]:5353"));
        assertEquals(Policy.UPSERT_ONLY, s.policy());
        assertEquals(2, s.providers().size());
        assertEquals("rfc2136 fd00::1:5353", s.providers().get(1).describe());
    }

    @Test
    void validValuesParse() {
        assertTrue(settings(Map.of("meshdns.exposure.txt-encrypt-enabled", "true",
                "meshdns.exposure.txt-encrypt-aes-key", "passphrasewhichneedstobe32bytes!")).claims().encrypts());
        assertEquals(java.util.Set.of("RecordReady", "RecordError"),
                settings(Map.of("meshdns.exposure.events-emit", "RecordReady,RecordError")).eventsEmit());
        assertEquals(List.of("192.0.2.1", "lb.example.net"),
                settings(Map.of("meshdns.exposure.default-targets", "192.0.2.1,LB.example.net.")).sources().defaultTargets());
        assertTrue(settings(Map.of("meshdns.exposure.fqdn-template", "{{.Name}}.example.org", "meshdns.exposure.combine-fqdn-annotation", "true"))
                .sources().combineFqdnAnnotation());
        assertEquals("dns.example.com/", settings(Map.of("meshdns.exposure.annotation-prefix", "dns.example.com/")).sources().annotationPrefix());
    }
}
