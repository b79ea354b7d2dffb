package io.meshdns.exposure.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.plan.DomainFilter;
import io.meshdns.exposure.plan.Policy;
import io.meshdns.exposure.registry.TxtNameMapper;
import io.meshdns.exposure.registry.TxtRegistry;
import io.meshdns.exposure.source.Desired;
import io.meshdns.exposure.sync.Reconciler;
import io.meshdns.testsupport.dns.DnsServer;
import io.meshdns.testsupport.dns.KnotServer;
import io.meshdns.exposure.testing.Rfc2136Targets;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Knot splits a big AXFR over many TCP messages and, as RFC 8945 5.3.1 allows, need not sign each
 * one (ExternalDNS bug #6732). The zone here is ~700 KB, so the transfer has 10+ messages.
 */
class Rfc2136KnotTest {

    static String bigZone() {
        var sb = new StringBuilder();
        String filler = "x".repeat(200);
        for (int i = 0; i < 3000; i++) {
            sb.append("bulk").append(i).append(" IN TXT \"").append(filler).append("\"\n");
        }
        sb.append("foreign IN A 192.0.2.99\n");
        return sb.toString();
    }

    @Test
    void multiMessageAxfrWithTsigAndUpdates() throws Exception {
        try (KnotServer knot = new KnotServer("hmac-sha512", List.of("example.net"))) {
            knot.start(bigZone());
            assertTrue(axfrMessages(knot) > 5, "the transfer really spans several messages");

            var provider = Rfc2136Targets.provider(knot);
            var raw = provider.records();
            assertEquals(3000, raw.stream().filter(e -> e.dnsName().startsWith("bulk")).count(), "every RRset read back");

            var r = new Reconciler(new TxtRegistry(provider, "knot-owner", TxtNameMapper.plain(), 300), Policy.SYNC,
                    DomainFilter.ALL, false);
            var desired = Desired.of(
                    new Endpoint("registry.nsm-system.example.net", "SRV", List.of("0 0 5002 registry.nsm-system.example.net"), 60,
                            Map.of(Endpoint.RESOURCE_LABEL, "service/nsm-system/registry"), ""),
                    new Endpoint("registry.nsm-system.example.net", "A", List.of("192.0.2.7"), 60,
                            Map.of(Endpoint.RESOURCE_LABEL, "service/nsm-system/registry"), ""),
                    new Endpoint("foreign.example.net", "A", List.of("192.0.2.1"), 60,
                            Map.of(Endpoint.RESOURCE_LABEL, "service/default/foreign"), ""));
            var first = r.reconcile(desired);
            assertEquals(2, first.changes().create().size(), first.changes().describe());
            assertEquals(List.of("0 0 5002 registry.nsm-system.example.net."), knot.dig("registry.nsm-system.example.net", "SRV"));
            assertEquals(List.of("192.0.2.7"), knot.dig("registry.nsm-system.example.net", "A"));
            assertEquals(List.of("192.0.2.99"), knot.dig("foreign.example.net", "A"));
            assertTrue(r.reconcile(desired).ops().isEmpty(), "read back through a multi-message AXFR: converged");

            r.reconcile(Desired.of());
            assertEquals(List.of(), knot.dig("registry.nsm-system.example.net", "SRV"));
            assertEquals(List.of("192.0.2.99"), knot.dig("foreign.example.net", "A"));
            assertEquals(1, knot.dig("bulk2999.example.net", "TXT").size());
        }
    }

    /** Independent check with kdig, which reports how many messages the transfer took. */
    static int axfrMessages(DnsServer<?> server) throws Exception {
        Process p = new ProcessBuilder("kdig", "@127.0.0.1", "-p", String.valueOf(server.port()), "-y",
                server.algorithm() + ":" + DnsServer.KEY_NAME + ":" + server.secret(), "example.net", "AXFR")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        Matcher m = Pattern.compile("\\((\\d+) messages").matcher(out);
        assertTrue(m.find(), out.substring(Math.max(0, out.length() - 500)));
        assertTrue(!out.contains("TSIG") || !out.contains("failed"), "kdig verified TSIG: " + out.substring(Math.max(0, out.length() - 500)));
        return Integer.parseInt(m.group(1));
    }
}
