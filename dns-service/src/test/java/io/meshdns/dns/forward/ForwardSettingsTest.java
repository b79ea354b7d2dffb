package io.meshdns.dns.forward;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.meshdns.dns.cache.CacheConfig;
import io.meshdns.dns.cache.CacheSettings;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.xbill.DNS.Name;

/** Config parsing through the real {@code @ConfigMapping}s and key names. */
class ForwardSettingsTest {

    private static SmallRyeConfig config(Map<String, String> properties) {
        return new SmallRyeConfigBuilder()
                .withMapping(ForwardConfig.class)
                .withMapping(CacheConfig.class)
                .withConverter(Duration.class, 100, new io.quarkus.runtime.configuration.DurationConverter())
                .withSources(new PropertiesConfigSource(properties, "test", 500))
                .build();
    }

    private static ForwardSettings settings(Map<String, String> properties) {
        return ForwardSettings.from(config(properties).getConfigMapping(ForwardConfig.class), "127.0.0.1", 5353);
    }

    private static String failure(Map<String, String> properties) {
        return assertThrows(IllegalArgumentException.class, () -> settings(properties)).getMessage();
    }

    @Test
    void defaults() {
        ForwardSettings s = settings(Map.of("meshdns.dns.upstreams", "192.0.2.53"));
        assertEquals(List.of("192.0.2.53:53"), s.upstreams().stream().map(Upstream::label).toList());
        assertEquals(ForwardPolicy.RANDOM, s.policy());
        assertFalse(s.forceTcp());
        assertEquals(1000, s.maxConcurrent());
        assertEquals(Duration.ofSeconds(2), s.timeout());
        assertEquals(Duration.ofMillis(500), s.healthCheck());
        assertEquals(2, s.maxFails());
        assertTrue(s.loopDetect());
        CacheSettings c = CacheSettings.from(config(Map.of()).getConfigMapping(CacheConfig.class));
        assertEquals(CacheSettings.defaults(), c);
    }

    @Test
    void parsesUpstreamsWithPortsAndIpv6() {
        ForwardSettings s = settings(Map.of("meshdns.dns.upstreams", "127.0.0.1:5300, [::1]:5301, ::1, localhost",
                "meshdns.dns.forward.policy", "round-robin", "meshdns.dns.forward.force-tcp", "true",
                "meshdns.dns.forward.max-concurrent", "2", "meshdns.dns.forward.timeout", "300ms"));
        assertEquals(List.of("127.0.0.1:5300", "[0:0:0:0:0:0:0:1]:5301", "[0:0:0:0:0:0:0:1]:53", "127.0.0.1:53"),
                s.upstreams().stream().map(Upstream::label).toList());
        assertEquals(ForwardPolicy.ROUND_ROBIN, s.policy());
        assertTrue(s.forceTcp());
        assertEquals(2, s.maxConcurrent());
        assertEquals(Duration.ofMillis(300), s.timeout());
    }

    /** One bad value beside a good upstream (or the bad upstream itself): the message starts with its key. */
    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "meshdns.dns.upstreams              | 127.0.0.1:dns           | meshdns.dns.upstreams: '127.0.0.1:dns'",
            "meshdns.dns.upstreams              | 127.0.0.1:70000         | meshdns.dns.upstreams",
            "meshdns.dns.forward.policy         | fastest                 | meshdns.dns.forward.policy",
            "meshdns.dns.forward.max-concurrent | 0                       | meshdns.dns.forward.max-concurrent",
            "meshdns.dns.zone-forwards          | 203.0.113.5:53          | meshdns.dns.zone-forwards",
            "meshdns.dns.zone-forwards          | a.example=203.0.113.5:x | meshdns.dns.zone-forwards",
            "meshdns.dns.zone-forwards          | a.example=              | meshdns.dns.zone-forwards",
    })
    void aBadValueFailsNamingItsKey(String key, String value, String messageStart) {
        Map<String, String> properties = new HashMap<>(Map.of("meshdns.dns.upstreams", "1.1.1.1"));
        properties.put(key, value);
        String message = failure(properties);
        assertTrue(message.startsWith(messageStart), message);
    }

    @Test
    void badCacheValueFailsNamingTheKey() {
        CacheConfig c = config(Map.of("meshdns.dns.cache.servfail-ttl", "30s")).getConfigMapping(CacheConfig.class);
        String message = assertThrows(IllegalArgumentException.class, () -> CacheSettings.from(c)).getMessage();
        assertTrue(message.startsWith("meshdns.dns.cache.servfail-ttl"), message);
        CacheConfig c2 = config(Map.of("meshdns.dns.cache.max-entries", "0")).getConfigMapping(CacheConfig.class);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CacheSettings.from(c2)).getMessage()
                .startsWith("meshdns.dns.cache.max-entries"));
    }

    @Test
    void emptyUpstreamsReadResolvConf(@TempDir Path tmp) throws Exception {
        Path resolv = tmp.resolve("resolv.conf");
        Files.writeString(resolv, """
                # generated
                search example.com
                nameserver 127.0.0.53
                ; comment
                nameserver   fe80::1%eth0
                options edns0 trust-ad
                """);
        ForwardSettings s = settings(Map.of("meshdns.dns.forward.resolv-conf", resolv.toString()));
        assertEquals(List.of("127.0.0.53:53", "[fe80:0:0:0:0:0:0:1]:53"), s.upstreams().stream().map(Upstream::label).toList());

        Files.writeString(resolv, "search example.com\n");
        assertTrue(failure(Map.of("meshdns.dns.forward.resolv-conf", resolv.toString())).contains("lists no nameserver"));
        assertTrue(failure(Map.of("meshdns.dns.forward.resolv-conf", tmp.resolve("missing").toString()))
                .contains("meshdns.dns.forward.resolv-conf"));
    }

    @Test
    void zoneForwardsParseAndLongestZoneWins() {
        ForwardSettings s = settings(Map.of("meshdns.dns.upstreams", "127.0.0.1:5300",
                "meshdns.dns.zone-forwards", "example=127.0.0.2:53,cluster2.example=203.0.113.5:53,203.0.113.6"));
        assertEquals(2, s.zoneForwards().size());
        ZoneForward first = s.zoneForwards().get(0);
        assertEquals(Name.fromConstantString("cluster2.example."), first.zone(), "most specific first");
        assertEquals(List.of("203.0.113.5:53", "203.0.113.6:53"), first.servers().stream().map(Upstream::label).toList());

        assertEquals(first, ZoneForward.match(s.zoneForwards(), Name.fromConstantString("svc.CLUSTER2.example.")));
        assertEquals(first, ZoneForward.match(s.zoneForwards(), Name.fromConstantString("cluster2.example.")));
        assertEquals(Name.fromConstantString("example."),
                ZoneForward.match(s.zoneForwards(), Name.fromConstantString("cluster3.example.")).zone());
        assertNull(ZoneForward.match(s.zoneForwards(), Name.fromConstantString("example.com.")));
        assertNull(ZoneForward.match(s.zoneForwards(), Name.fromConstantString("notexample.")));
    }

    @Test
    void upstreamEqualToOurOwnListenerIsRejected() {
        String message = failure(Map.of("meshdns.dns.upstreams", "127.0.0.1:5353"));
        assertTrue(message.startsWith("meshdns.dns.upstreams") && message.contains("would loop"), message);
        // a different port, or a different loopback address, is another server
        settings(Map.of("meshdns.dns.upstreams", "127.0.0.1:5354,127.0.0.2:5353"));
        // listening on the wildcard address: every local address on that port is us
        ForwardConfig c = config(Map.of("meshdns.dns.upstreams", "127.0.0.2:5353")).getConfigMapping(ForwardConfig.class);
        assertThrows(IllegalArgumentException.class, () -> ForwardSettings.from(c, "0.0.0.0", 5353));
        assertTrue(failure(Map.of("meshdns.dns.upstreams", "1.1.1.1", "meshdns.dns.zone-forwards", "x.example=127.0.0.1:5353"))
                .startsWith("meshdns.dns.zone-forwards"));
    }
}
