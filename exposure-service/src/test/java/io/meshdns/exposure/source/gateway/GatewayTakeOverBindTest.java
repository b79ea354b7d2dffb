package io.meshdns.exposure.source.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.meshdns.exposure.plan.DomainFilter;
import io.meshdns.exposure.plan.Policy;
import io.meshdns.exposure.registry.TxtNameMapper;
import io.meshdns.exposure.registry.TxtRegistry;
import io.meshdns.exposure.source.ObjectTranslation;
import io.meshdns.exposure.source.SourceSettings;
import io.meshdns.exposure.sync.Reconciler;
import io.meshdns.exposure.testing.Rfc2136Targets;
import io.meshdns.testsupport.dns.BindServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Taking over from ExternalDNS v0.22's gateway-httproute source: a real BIND9 zone holding exactly what it writes
 * for a Gateway/HTTPRoute pair through rfc2136 (typed TXT claim naming {@code httproute/<ns>/<name>}, TTL 0), the
 * same objects translated by our source: the first pass changes nothing.
 */
class GatewayTakeOverBindTest {

    static final String EXTERNAL_DNS_V022 = """
            shop 0 IN A 203.0.113.50
            shop 0 IN AAAA 2001:db8::50
            a-shop 0 IN TXT "heritage=external-dns,external-dns/owner=ext,external-dns/resource=httproute/default/shop"
            aaaa-shop 0 IN TXT "heritage=external-dns,external-dns/owner=ext,external-dns/resource=httproute/default/shop"
            foreign 0 IN A 192.0.2.99
            """;

    static BindServer bind;

    @BeforeAll
    static void start() throws Exception {
        bind = new BindServer("hmac-sha256", List.of("gw.test"));
        bind.start(EXTERNAL_DNS_V022);
    }

    @AfterAll
    static void stop() throws Exception {
        bind.close();
    }

    @Test
    void theFirstPassOverExternalDnsRecordsOfARouteWritesNothing() throws Exception {
        String docs = GatewayRouteSourceTest.gateway("default", "edge", "[{name: http, protocol: HTTP, port: 80, hostname: \"*.gw.test\"}]",
                "[{type: IPAddress, value: 203.0.113.50}, {type: IPAddress, value: \"2001:db8::50\"}]", "")
                + GatewayRouteSourceTest.route("HTTPRoute", "default", "shop", "[shop.gw.test]", "[{name: edge}]",
                GatewayRouteSourceTest.accepted("{name: edge}", 1), 1, "");
        var objects = new ArrayList<HasMetadata>();
        for (String doc : docs.split("(?m)^---\\s*$")) if (!doc.isBlank()) objects.add((HasMetadata) new KubernetesSerialization().unmarshal(doc));
        var translation = new ObjectTranslation(List.of(new GatewayRouteSource(RouteKind.HTTP, GatewayFilter.ALL)),
                new SourceSettings(Optional.empty(), false, Optional.empty()), Set.of("gateway-httproute"));
        var desired = translation.translate(objects).toDesired();
        assertEquals(2, desired.endpoints().size(), desired.endpoints().toString());

        var reconciler = new Reconciler(new TxtRegistry(Rfc2136Targets.provider(bind, List.of("gw.test")), "ext", TxtNameMapper.plain(), 0),
                Policy.SYNC, DomainFilter.ALL, false);
        var first = reconciler.reconcile(desired);
        assertTrue(first.changes().isEmpty(), "no churn: " + first.changes().describe());
        assertTrue(first.ops().isEmpty(), first.ops().toString());
        assertEquals(List.of("203.0.113.50"), bind.dig("shop.gw.test", "A"));
        assertEquals(List.of("192.0.2.99"), bind.dig("foreign.gw.test", "A"));
    }
}
