package io.meshdns.exposure.provider.webhook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.plan.DomainFilter;
import io.meshdns.exposure.plan.Policy;
import io.meshdns.exposure.provider.ProviderException;
import io.meshdns.exposure.registry.TxtNameMapper;
import io.meshdns.exposure.registry.TxtRegistry;
import io.meshdns.exposure.source.Desired;
import io.meshdns.exposure.sync.Reconciler;
import io.meshdns.testsupport.webhook.StrictWebhookProvider;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The webhook client against a strict provider written from ExternalDNS's webhook protocol. */
class WebhookProviderTest {

    static final String CLAIM = "\"heritage=external-dns,external-dns/owner=ext,external-dns/resource=service/shop/web\"";

    static Reconciler reconciler(StrictWebhookProvider server, String owner) {
        var provider = new WebhookProvider(URI.create(server.url()), Duration.ofSeconds(5), 5);
        return new Reconciler(new TxtRegistry(provider, owner, TxtNameMapper.plain(), 0), Policy.SYNC, DomainFilter.ALL, false);
    }

    static Endpoint ep(String name, String type, String resource, long ttl, String... targets) {
        return new Endpoint(name, type, List.of(targets), ttl, Map.of(Endpoint.RESOURCE_LABEL, resource), "");
    }

    @Test
    void publishesUpdatesDeletesAndLeavesForeignRecordsAlone() throws Exception {
        try (var server = new StrictWebhookProvider(List.of("example.org"))) {
            server.seed("foreign.example.org", "A", 300, "192.0.2.99");
            server.seed("foreign.example.org", "TXT", 0, "hand-made");
            var r = reconciler(server, "owner-1");
            var desired = Desired.of(ep("web.example.org", "A", "service/default/web", 60, "192.0.2.1", "192.0.2.2"),
                    ep("alias.example.org", "CNAME", "ingress/default/alias", 0, "web.example.org"),
                    ep("foreign.example.org", "A", "service/default/foreign", 0, "192.0.2.1"),
                    ep("outside.example.com", "A", "service/default/outside", 0, "192.0.2.1"));
            var first = r.reconcile(desired);
            assertEquals(2, first.changes().create().size(), first.changes().describe());
            assertEquals(List.of("192.0.2.1", "192.0.2.2"), server.targets("web.example.org", "A"));
            assertEquals(60, server.ttl("web.example.org", "A"));
            // the claim is ExternalDNS's, quoted as ExternalDNS sends it
            assertEquals(List.of("\"heritage=external-dns,external-dns/owner=owner-1,external-dns/resource=service/default/web\""),
                    server.targets("a-web.example.org", "TXT"));
            assertEquals(List.of("web.example.org"), server.targets("alias.example.org", "CNAME"));
            assertEquals(List.of(), server.targets("outside.example.com", "A"), "outside the negotiated domain filter");
            assertEquals(List.of("192.0.2.99"), server.targets("foreign.example.org", "A"));

            // negotiation first, then the other calls; all with the media type (the server would have said 406/415)
            assertEquals("GET / 200", server.requests().get(0));
            assertTrue(server.requests().contains("POST /adjustendpoints 200"), server.requests().toString());
            assertTrue(server.requests().contains("POST /records 204"), server.requests().toString());
            assertTrue(r.reconcile(desired).ops().isEmpty(), "converged");

            var changed = Desired.of(ep("web.example.org", "A", "service/default/web", 60, "192.0.2.3"));
            var third = r.reconcile(changed);
            assertEquals(1, third.changes().updateNew().size(), third.changes().describe());
            assertEquals(1, third.changes().delete().size(), third.changes().describe());
            assertEquals(List.of("192.0.2.3"), server.targets("web.example.org", "A"));
            assertEquals(List.of(), server.targets("alias.example.org", "CNAME"));
            assertEquals(List.of(), server.targets("cname-alias.example.org", "TXT"));
            assertEquals(List.of("192.0.2.99"), server.targets("foreign.example.org", "A"));
            assertEquals(List.of("hand-made"), server.targets("foreign.example.org", "TXT"));
        }
    }

    @Test
    void takesOverAnExternalDnsZoneWithoutAWriteAndChangesOnlyTheDataRecord() throws Exception {
        try (var server = new StrictWebhookProvider(List.of("shop.test"))) {
            // exactly what ExternalDNS v0.22 leaves at a webhook provider: the data record and the typed TXT, no TTL
            server.seed("web.shop.test", "A", 0, "203.0.113.20");
            server.seed("a-web.shop.test", "TXT", 0, CLAIM);
            var r = reconciler(server, "ext");
            var desired = Desired.of(ep("web.shop.test", "A", "service/shop/web", 0, "203.0.113.20"));
            var takeover = r.reconcile(desired);
            assertTrue(takeover.ops().isEmpty(), takeover.ops().toString());
            assertTrue(server.requests().stream().noneMatch(q -> q.startsWith("POST /records")), server.requests().toString());

            var before = server.dump();
            r.reconcile(Desired.of(ep("web.shop.test", "A", "service/shop/web", 0, "203.0.113.21")));
            var after = server.dump();
            assertEquals(List.of(CLAIM), server.targets("a-web.shop.test", "TXT"), "the claim is kept byte for byte");
            var changed = after.stream().filter(l -> !before.contains(l)).toList();
            assertEquals(List.of("web.shop.test A [\"203.0.113.21\"] 0"), changed, "only the data record differs");
        }
    }

    @Test
    void a500IsRetriedAndA4xxIsNot() throws Exception {
        try (var server = new StrictWebhookProvider(List.of("example.org"))) {
            var r = reconciler(server, "owner-1");
            r.reconcile(Desired.of()); // negotiate
            server.failNext(1, 500);
            r.reconcile(Desired.of(ep("retry.example.org", "A", "service/default/retry", 0, "192.0.2.7")));
            assertEquals(List.of("192.0.2.7"), server.targets("retry.example.org", "A"), "the 500 was retried");
            assertTrue(server.requests().contains("GET /records 500"), server.requests().toString());

            server.failNext(1, 404);
            var provider = new WebhookProvider(URI.create(server.url()), Duration.ofSeconds(5), 5);
            ProviderException e = assertThrows(ProviderException.class, provider::records);
            assertTrue(e.getMessage().contains("404"), e.getMessage());
            assertEquals(1, server.requests().stream().filter(q -> q.endsWith(" 404")).count(), "4xx not retried");
        }
    }

    @Test
    void aProviderThatNeverAnswersWithTheMediaTypeIsRefused() throws Exception {
        var plain = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
        plain.createContext("/", ex -> {
            byte[] b = "{}".getBytes();
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        plain.start();
        try {
            var provider = new WebhookProvider(URI.create("http://127.0.0.1:" + plain.getAddress().getPort()), Duration.ofSeconds(5), 1);
            ProviderException e = assertThrows(ProviderException.class, provider::records);
            assertTrue(e.getMessage().contains("wrong Content-Type"), e.getMessage());
        } finally {
            plain.stop(0);
        }
    }
}
