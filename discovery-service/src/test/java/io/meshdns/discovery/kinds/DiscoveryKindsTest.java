package io.meshdns.discovery.kinds;

import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.meshdns.discovery.config.DiscoveryConfig;
import io.meshdns.discovery.translate.Translation;
import io.meshdns.model.Kind;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.smallrye.config.common.MapBackedConfigSource;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DiscoveryKindsTest {

    @Test
    void everyCatalogKindHasExactlyOneRow() {
        EnumSet<Kind> seen = EnumSet.noneOf(Kind.class);
        for (DiscoveryKind k : DiscoveryKinds.ALL) {
            assertTrue(seen.add(k.kind()), "two rows for " + k.kind());
            assertFalse(k.apiVersions().isEmpty(), k.kind() + " has no API version");
            // The resource is what RBAC grants: for a built-in kind, fabric8's model knows it too.
            if (!k.custom()) assertEquals(HasMetadata.getPlural(k.typedClass()), k.resource(), k.kind().toString());
        }
        assertEquals(EnumSet.allOf(Kind.class), seen);
        assertEquals(List.of(Kind.values()), DiscoveryKinds.ALL.stream().map(DiscoveryKind::kind).toList(),
                "the table is in Kind's order (the watchers start their informers in it)");
    }

    /** A switch's key is the key its mapping method reads: off and on through the configuration, by that key. */
    @Test
    void anOptionalKindsSwitchReadsItsKey() {
        List<Kind> optional = new ArrayList<>();
        for (DiscoveryKind k : DiscoveryKinds.ALL) {
            if (!k.optional()) continue;
            optional.add(k.kind());
            for (boolean on : new boolean[]{false, true}) {
                assertEquals(on, k.switchedBy().isOn().test(config(Map.of(k.switchedBy().key(), String.valueOf(on)))),
                        k.switchedBy().key() + "=" + on);
            }
        }
        assertTrue(optional.containsAll(List.of(Kind.POD, Kind.SERVICE_ENTRY, Kind.SERVICE_IMPORT)), optional.toString());
    }

    private static DiscoveryConfig config(Map<String, String> values) {
        return new SmallRyeConfigBuilder().withMapping(DiscoveryConfig.class)
                .withConverter(java.time.Duration.class, 200, new io.quarkus.runtime.configuration.DurationConverter())
                .withSources(new MapBackedConfigSource("test", values, 500) {
                }).build().getConfigMapping(DiscoveryConfig.class);
    }

    @Test
    void aCustomResourceIsRecognisedByKindAndGroupAtEveryVersion() {
        for (String version : new String[]{"networking.istio.io/v1", "networking.istio.io/v1beta1"}) {
            var se = new GenericKubernetesResourceBuilder().withApiVersion(version).withKind("ServiceEntry")
                    .withNewMetadata().withName("ext").withNamespace("shop").endMetadata()
                    .withAdditionalProperties(Map.of("spec", Map.of("hosts", java.util.List.of("api.example.com"),
                            "resolution", "DNS")))
                    .build();
            assertEquals(Kind.SERVICE_ENTRY, DiscoveryKinds.kindOf(se), version);
            assertInstanceOf(Translation.Accepted.class, DiscoveryKinds.translate("east", se), version);
        }
        var foreign = new GenericKubernetesResourceBuilder().withApiVersion("example.com/v1").withKind("ServiceEntry")
                .withNewMetadata().withName("x").withNamespace("shop").endMetadata().build();
        assertNull(DiscoveryKinds.kindOf(foreign), "same kind name, another group: not Istio's");
        assertInstanceOf(Translation.Skipped.class, DiscoveryKinds.translate("east", foreign));
    }

    @Test
    void refsComeFromTheRowAndOptionalKindsFollowTheirSwitch() {
        var svc = new ServiceBuilder().withNewMetadata().withName("web").endMetadata().build();
        assertEquals("default", DiscoveryKinds.refOf("east", svc).namespace(), "a manifest without a namespace is kubectl's default");
        assertTrue(DiscoveryKinds.of(Kind.SERVICE).enabled(Set.of()));
        assertFalse(DiscoveryKinds.of(Kind.POD).enabled(Set.of()));
        assertTrue(DiscoveryKinds.of(Kind.POD).enabled(Set.of(Kind.POD)));
    }
}
