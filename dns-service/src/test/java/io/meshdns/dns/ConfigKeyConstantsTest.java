package io.meshdns.dns;

import io.meshdns.dns.dynamic.DynamicConfig;
import io.meshdns.dns.nodelocal.NodeLocalConfig;
import io.meshdns.dns.server.ServerConfig;
import io.meshdns.dns.zonefile.FileSourceConfig;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The key constants of the config mappings (the keys a failed start names) are keys the mappings read, through the
 * real SmallRye mapping: it refuses a key under a mapping's prefix that no method maps, so a method's name drifting
 * from its constant (a rename, a {@code @WithName} added or dropped) fails here and not on a user's node.
 */
class ConfigKeyConstantsTest {
    private static final List<Class<?>> MAPPINGS =
            List.of(ServerConfig.class, DynamicConfig.class, FileSourceConfig.class, NodeLocalConfig.class);

    private static SmallRyeConfig config(Map<String, String> properties) {
        SmallRyeConfigBuilder builder = new SmallRyeConfigBuilder()
                .withSources(new PropertiesConfigSource(properties, "test", 500));
        for (Class<?> mapping : MAPPINGS) {
            builder.withMapping(mapping);
        }
        return builder.build();
    }

    /** The interface's {@code String} constants that name a key under {@code meshdns.}. */
    private static List<String> keyConstants(Class<?> mapping) throws IllegalAccessException {
        List<String> keys = new ArrayList<>();
        for (Field f : mapping.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class
                    && f.get(null) instanceof String key && key.startsWith("meshdns.")) {
                keys.add(key);
            }
        }
        return keys;
    }

    @Test
    void everyKeyConstantIsAKeyTheMappingsRead() throws IllegalAccessException {
        Map<String, String> properties = new HashMap<>();
        for (Class<?> mapping : MAPPINGS) {
            for (String key : keyConstants(mapping)) {
                properties.put(key, "1");
            }
        }
        assertTrue(properties.size() >= 30, "constants found: " + properties.keySet());
        config(properties);
    }

    /** The one listener key without a constant. */
    @Test
    void queryLogIsReadFromItsKey() {
        assertTrue(config(Map.of("meshdns.dns.query-log", "true")).getConfigMapping(ServerConfig.class).queryLog());
    }

    /** What makes the test above prove something: a key no method maps fails the build, naming it. */
    @Test
    void aKeyNoMethodMapsFailsTheBuild() {
        RuntimeException e = assertThrows(RuntimeException.class,
                () -> config(Map.of("meshdns.dns.node-local.keep-on-exits", "true")));
        assertTrue(e.getMessage().contains("meshdns.dns.node-local.keep-on-exits"), e.getMessage());
    }
}
