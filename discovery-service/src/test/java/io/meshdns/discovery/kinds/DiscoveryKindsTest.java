package io.meshdns.discovery.kinds;

import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.meshdns.discovery.translate.Translation;
import io.meshdns.model.Kind;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
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
            assertEquals(k.custom(), k.typedClass() == null, k.kind() + ": a custom resource is read generically, a built-in one typed");
        }
        assertEquals(EnumSet.allOf(Kind.class), seen);
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
