package io.meshdns.exposure.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.meshdns.exposure.provider.webhook.WebhookProvider;
import io.meshdns.exposure.registry.TxtNameMapper;
import io.meshdns.exposure.registry.TxtRegistry;
import io.meshdns.exposure.source.Desired;
import io.meshdns.exposure.sync.Reconciler;
import io.meshdns.testsupport.webhook.StrictWebhookProvider;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** meshdns.exposure.target-net-filter / exclude-target-net, as ExternalDNS's flags. */
class TargetNetFilterTest {

    @Test
    void includedNetworksMinusExcludedOnes() {
        var f = TargetNetFilter.of(List.of("10.0.0.0/8", "2001:db8::/32"), List.of("10.1.0.0/16", "10.2.3.4"));
        assertTrue(f.matches("10.9.9.9"));
        assertFalse(f.matches("10.1.2.3"), "excluded /16");
        assertFalse(f.matches("10.2.3.4"), "excluded host");
        assertTrue(f.matches("10.2.3.5"));
        assertTrue(f.matches("2001:db8::1"));
        assertFalse(f.matches("192.0.2.1"));
        assertFalse(f.matches("web.example.org"), "a name is not inside any included network");
        var excludeOnly = TargetNetFilter.of(List.of(), List.of("192.0.2.0/25"));
        assertTrue(excludeOnly.matches("web.example.org"));
        assertFalse(excludeOnly.matches("192.0.2.127"));
        assertTrue(excludeOnly.matches("192.0.2.128"));
    }

    @Test
    void aValueThatIsNotANetworkFailsNamingItsKey() {
        var e = assertThrows(IllegalArgumentException.class, () -> TargetNetFilter.of(List.of("10.0.0.0/33"), List.of()));
        assertTrue(e.getMessage().startsWith("meshdns.exposure.target-net-filter: '10.0.0.0/33'"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> TargetNetFilter.of(List.of(), List.of("example.org/8")));
        assertTrue(e.getMessage().startsWith("meshdns.exposure.exclude-target-net: 'example.org/8'"), e.getMessage());
    }

    @Test
    void onlyTargetsInsideThePublishedNetworksArePublished() throws Exception {
        try (var server = new StrictWebhookProvider(List.of("example.org"))) {
            var provider = new WebhookProvider(URI.create(server.url()), Duration.ofSeconds(5), 1);
            var nets = TargetNetFilter.of(List.of("203.0.113.0/24"), List.of());
            var r = new Reconciler(new TxtRegistry(provider, "me", TxtNameMapper.plain(), 0), Policy.SYNC, DomainFilter.ALL, false,
                    TxtNameMapper.plain(), RecordTypeFilter.ALL, nets);
            r.reconcile(Desired.of(PlanTest.want("service/ns/web", "web.example.org", "A", "10.0.0.5", "203.0.113.5"),
                    PlanTest.want("service/ns/int", "internal.example.org", "A", "10.0.0.6")));
            assertEquals(List.of("203.0.113.5"), server.targets("web.example.org", "A"));
            assertEquals(List.of(), server.targets("internal.example.org", "A"), "no target left: not published");
        }
    }

}
