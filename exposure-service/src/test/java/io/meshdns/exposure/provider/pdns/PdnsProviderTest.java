package io.meshdns.exposure.provider.pdns;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.plan.DomainFilter;
import io.meshdns.exposure.plan.Policy;
import io.meshdns.exposure.registry.TxtNameMapper;
import io.meshdns.exposure.registry.TxtRegistry;
import io.meshdns.exposure.source.Desired;
import io.meshdns.exposure.sync.Reconciler;
import io.meshdns.testsupport.dns.PowerDnsServer;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The pdns provider against a real pdns_server (gsqlite3), checked over its HTTP API and with dig. */
class PdnsProviderTest {

    static PowerDnsServer pdns;

    @BeforeAll
    static void start() throws Exception {
        pdns = new PowerDnsServer().start();
        pdns.createZone("example.org",
                "{\"name\":\"foreign.example.org.\",\"type\":\"A\",\"ttl\":300,\"records\":[{\"content\":\"192.0.2.99\",\"disabled\":false}]}",
                "{\"name\":\"foreign.example.org.\",\"type\":\"TXT\",\"ttl\":300,\"records\":[{\"content\":\"\\\"hand-made\\\"\",\"disabled\":false}]}");
        // exactly what ExternalDNS v0.22's pdns provider writes: the data RRset and the typed TXT (quoted, TTL 300)
        pdns.createZone("shop.test",
                "{\"name\":\"web.shop.test.\",\"type\":\"A\",\"ttl\":300,\"records\":[{\"content\":\"203.0.113.20\",\"disabled\":false}]}",
                "{\"name\":\"a-web.shop.test.\",\"type\":\"TXT\",\"ttl\":300,\"records\":[{\"content\":\"\\\"heritage=external-dns,external-dns/owner=ext,external-dns/resource=service/shop/web\\\"\",\"disabled\":false}]}");
    }

    @AfterAll
    static void stop() throws Exception {
        pdns.close();
    }

    static Reconciler reconciler(String owner, DomainFilter filter) {
        var provider = new PdnsProvider(URI.create(pdns.apiUrl()), pdns.apiKey(), "localhost", Duration.ofSeconds(10), filter,
                PdnsProviderFactory.EXTERNAL_DNS_DEFAULT_TTL);
        return new Reconciler(new TxtRegistry(provider, owner, TxtNameMapper.plain(), 0), Policy.SYNC, filter, false);
    }

    static Endpoint ep(String name, String type, String resource, long ttl, String... targets) {
        return new Endpoint(name, type, List.of(targets), ttl, Map.of(Endpoint.RESOURCE_LABEL, resource), "");
    }

    static List<String> dig(String name, String type) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("dig", "@127.0.0.1", "-p", String.valueOf(pdns.dnsPort()), "+short", "+norecurse",
                "+time=2", "+tries=1", name, type).redirectErrorStream(true).start();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        var lines = new ArrayList<String>();
        for (String l : new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
            if (!l.isBlank()) lines.add(l.trim());
        }
        lines.sort(null);
        return lines;
    }

    @Test
    void publishesEveryTypeUpdatesDeletesAndLeavesForeignRecordsAlone() throws Exception {
        var filter = new DomainFilter(List.of("example.org"), List.of(), java.util.Optional.empty(), java.util.Optional.empty());
        var r = reconciler("owner-1", filter);
        var desired = Desired.of(ep("web.example.org", "A", "service/default/web", 60, "192.0.2.1", "192.0.2.2"),
                ep("web.example.org", "AAAA", "service/default/web", 0, "2001:db8::1"),
                ep("alias.example.org", "CNAME", "ingress/default/alias", 0, "web.example.org"),
                ep("registry.example.org", "SRV", "service/nsm/registry", 0, "0 0 5002 registry.example.org"),
                ep("note.example.org", "TXT", "crd/default/note", 0, "hello world"),
                ep("foreign.example.org", "A", "service/default/foreign", 0, "192.0.2.1"));
        var first = r.reconcile(desired);
        assertEquals(5, first.changes().create().size(), first.changes().describe());
        assertEquals(List.of("192.0.2.1", "192.0.2.2"), dig("web.example.org", "A"));
        assertEquals(List.of("2001:db8::1"), dig("web.example.org", "AAAA"));
        assertEquals(List.of("web.example.org."), dig("alias.example.org", "CNAME"));
        assertEquals(List.of("0 0 5002 registry.example.org."), dig("registry.example.org", "SRV"));
        assertEquals(List.of("\"hello world\""), dig("note.example.org", "TXT"));
        assertEquals(List.of("\"heritage=external-dns,external-dns/owner=owner-1,external-dns/resource=service/default/web\""),
                dig("a-web.example.org", "TXT"));
        String zone = pdns.zoneJson("example.org");
        assertTrue(zone.contains("\"name\": \"aaaa-web.example.org.\"") || zone.contains("\"name\":\"aaaa-web.example.org.\""), zone);
        assertTrue(zone.replace(" ", "").contains("\"ttl\":300,\"type\":\"AAAA\""), "no TTL configured: ExternalDNS's 300 s: " + zone);
        assertTrue(r.reconcile(desired).ops().isEmpty(), "read back from the API: converged");

        var changed = Desired.of(ep("web.example.org", "A", "service/default/web", 60, "192.0.2.3"),
                ep("registry.example.org", "SRV", "service/nsm/registry", 0, "0 0 6000 registry.example.org"));
        var third = r.reconcile(changed);
        assertEquals(2, third.changes().updateNew().size(), third.changes().describe());
        assertEquals(3, third.changes().delete().size(), third.changes().describe());
        assertEquals(List.of("192.0.2.3"), dig("web.example.org", "A"));
        assertEquals(List.of(), dig("web.example.org", "AAAA"));
        assertEquals(List.of(), dig("aaaa-web.example.org", "TXT"));
        assertEquals(List.of("0 0 6000 registry.example.org."), dig("registry.example.org", "SRV"));
        assertEquals(List.of("192.0.2.99"), dig("foreign.example.org", "A"));
        assertEquals(List.of("\"hand-made\""), dig("foreign.example.org", "TXT"));

        // a restart in the middle: a new provider and registry (nothing cached) converge on the same zone
        assertTrue(reconciler("owner-1", filter).reconcile(changed).ops().isEmpty());
        reconciler("owner-1", filter).reconcile(Desired.of());
        assertEquals(List.of(), dig("web.example.org", "A"));
        assertEquals(List.of(), dig("a-web.example.org", "TXT"));
        assertEquals(List.of("192.0.2.99"), dig("foreign.example.org", "A"));
    }

    @Test
    void takesOverExternalDnsRecordsWithoutAWrite() throws Exception {
        var filter = new DomainFilter(List.of("shop.test"), List.of(), java.util.Optional.empty(), java.util.Optional.empty());
        var r = reconciler("ext", filter);
        var takeover = r.reconcile(Desired.of(ep("web.shop.test", "A", "service/shop/web", 0, "203.0.113.20")));
        assertTrue(takeover.ops().isEmpty(), takeover.ops().toString());
        String before = pdns.zoneJson("shop.test");
        r.reconcile(Desired.of(ep("web.shop.test", "A", "service/shop/web", 0, "203.0.113.21")));
        assertEquals(List.of("203.0.113.21"), dig("web.shop.test", "A"));
        assertEquals(List.of("\"heritage=external-dns,external-dns/owner=ext,external-dns/resource=service/shop/web\""),
                dig("a-web.shop.test", "TXT"));
        String after = pdns.zoneJson("shop.test");
        assertTrue(before.contains("203.0.113.20") && after.contains("203.0.113.21"));
        // the claim RRset is unchanged (same text, same TTL)
        String claim = "\"content\": \"\\\"heritage=external-dns,external-dns/owner=ext,external-dns/resource=service/shop/web\\\"\"";
        assertTrue(after.contains(claim), after);
    }

    @Test
    void oneBadRecordIsRefusedAndTheRestIsPublished() throws Exception {
        var filter = new DomainFilter(List.of("example.org"), List.of(), java.util.Optional.empty(), java.util.Optional.empty());
        var r = reconciler("owner-2", filter);
        var outcome = r.reconcile(Desired.of(ep("good.example.org", "A", "service/default/good", 0, "192.0.2.5"),
                // PowerDNS refuses a CNAME next to other data at the same name (HTTP 422)
                ep("foreign.example.org", "CNAME", "service/default/bad", 0, "web.example.org"),
                ep("other.example.org", "A", "service/default/other", 0, "192.0.2.6")));
        assertEquals(List.of("192.0.2.5"), dig("good.example.org", "A"));
        assertEquals(List.of("192.0.2.6"), dig("other.example.org", "A"));
        assertEquals(List.of("192.0.2.99"), dig("foreign.example.org", "A"));
        assertEquals(List.of("service/default/bad"), outcome.problems().stream().map(p -> p.resourceKey()).toList(), outcome.problems().toString());
        assertTrue(outcome.published().containsAll(List.of("service/default/good", "service/default/other")), outcome.published().toString());
    }
}
