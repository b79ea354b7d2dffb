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

    static void failsNaming(String key, Map<String, String> overrides, String... remove) {
        Exception e = assertThrows(Exception.class, () -> settings(overrides, remove));
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
        failsNaming("meshdns.exposure.default-ttl", Map.of("meshdns.exposure.default-ttl", "4294967295"));
        failsNaming("meshdns.exposure.adopt-owners", Map.of("meshdns.exposure.owner-id", "me", "meshdns.exposure.adopt-owners", "old,me"));
        failsNaming("meshdns.exposure.rfc2136.min-ttl", Map.of("meshdns.exposure.rfc2136.min-ttl", "-5s"));
        failsNaming("meshdns.exposure.rfc2136.batch-change-size", Map.of("meshdns.exposure.rfc2136.batch-change-size", "0"));
        failsNaming("meshdns.exposure.webhook.url", Map.of("meshdns.exposure.provider", "webhook"));
        failsNaming("meshdns.exposure.webhook.url", Map.of("meshdns.exposure.provider", "webhook", "meshdns.exposure.webhook.url", "ftp://x"));
        failsNaming("meshdns.exposure.pdns.server", Map.of("meshdns.exposure.provider", "pdns", "meshdns.exposure.pdns.api-key", "k"));
        failsNaming("meshdns.exposure.pdns.api-key", Map.of("meshdns.exposure.provider", "pdns", "meshdns.exposure.pdns.server", "http://127.0.0.1:8081"));
        failsNaming("meshdns.exposure.coredns.etcd-urls", Map.of("meshdns.exposure.provider", "coredns", "meshdns.exposure.coredns.etcd-urls", "127.0.0.1:2379"));
        failsNaming("meshdns.exposure.txt-encrypt-aes-key", Map.of("meshdns.exposure.txt-encrypt-enabled", "true"));
        failsNaming("meshdns.exposure.txt-encrypt-aes-key", Map.of("meshdns.exposure.txt-encrypt-enabled", "true",
                "meshdns.exposure.txt-encrypt-aes-key", "too-short"));
        assertTrue(settings(Map.of("meshdns.exposure.txt-encrypt-enabled", "true",
                "meshdns.exposure.txt-encrypt-aes-key", "passphrasewhichneedstobe32bytes!")).claims().encrypts());
        failsNaming("meshdns.exposure.events-emit", Map.of("meshdns.exposure.events-emit", "RecordReady,RecordGone"));
        assertEquals(java.util.Set.of("RecordReady", "RecordError"),
                settings(Map.of("meshdns.exposure.events-emit", "RecordReady,RecordError")).eventsEmit());
        failsNaming("meshdns.exposure.default-targets", Map.of("meshdns.exposure.default-targets", "192.0.2.1,not a name"));
        failsNaming("meshdns.exposure.force-default-targets", Map.of("meshdns.exposure.force-default-targets", "true"));
        assertEquals(List.of("192.0.2.1", "lb.example.net"),
                settings(Map.of("meshdns.exposure.default-targets", "192.0.2.1,LB.example.net.")).sources().defaultTargets());
        failsNaming("meshdns.exposure.fqdn-template", Map.of("meshdns.exposure.fqdn-template", "{{.Spec.ClusterIP}}.example.org"));
        failsNaming("meshdns.exposure.fqdn-template", Map.of("meshdns.exposure.fqdn-template", "{{.Name}.example.org"));
        assertTrue(settings(Map.of("meshdns.exposure.fqdn-template", "{{.Name}}.example.org", "meshdns.exposure.combine-fqdn-annotation", "true"))
                .sources().combineFqdnAnnotation());
        failsNaming("meshdns.exposure.annotation-prefix", Map.of("meshdns.exposure.annotation-prefix", "dns.example.com"));
        assertEquals("dns.example.com/", settings(Map.of("meshdns.exposure.annotation-prefix", "dns.example.com/")).sources().annotationPrefix());
        failsNaming("meshdns.exposure.coredns.prefix", Map.of("meshdns.exposure.provider", "coredns", "meshdns.exposure.coredns.prefix", "skydns"));
    }
}
