package io.meshdns.it.operator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.meshdns.testsupport.QuarkusJarProcess;
import io.meshdns.testsupport.dns.KnotServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code /v1/explain} on the running dns-service, one row per rule it can tell apart, and {@code bin/meshdns explain}
 * as its thin client. The node follows discovery (examples/clusters, node of east, placeholder 1.1.1.2), serves the
 * example zone file and a dynamic zone exposure-service publishes into, and forwards the rest to a real Knot. Two pods (shop/client-0
 * 10.244.1.50, billing/ledger-0 10.244.3.7) and a ServiceEntry exported to shop alone come from
 * {@code src/test/resources/operator/explain-clusters}.
 */
class ExplainEndpointTest {
    @TempDir
    static Path state;
    static RunningServices services;
    /** The upstream: a real Knot serving {@code upstream.test} (and REFUSED for the rest). */
    static KnotServer upstream;

    @BeforeAll
    static void start() throws Exception {
        upstream = new KnotServer("hmac-sha256", List.of("upstream.test"));
        upstream.start("twice IN A 192.0.2.77");
        services = new RunningServices(state, "127.0.0.1:" + upstream.port());
        try {
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).until(() ->
                    explain("registry.nsm-system." + RunningServices.DOMAIN, "SRV").path("rcode").asText().equals("NOERROR")
                            && explain("reviews.shop.svc.cluster.local", "A").path("rcode").asText().equals("NOERROR")
                            && explain("vault.service.entry", "A", "10.244.1.50").path("answer").toString().contains("192.0.2.50"));
        } catch (Throwable e) {
            throw new AssertionError(services.outputs(), e);
        }
    }

    @AfterAll
    static void stop() {
        if (services != null) services.close();
        if (upstream != null) upstream.close();
    }

    /** Asked as a pod (its address as {@code client}): its namespace decides exportTo and the search path. */
    @ParameterizedTest(name = "{0} {1} from {2}: {4}")
    @CsvSource(delimiter = '|', value = {
            // name | type | client | rcode | rule | the why says | an answer record contains
            "web.shop.shop.svc.cluster.local | A | 10.244.1.50 | NOERROR | autopath | CNAME to web.shop.svc.cluster.local. | 10.96.0.10",
            "vault.service.entry | A | 10.244.1.50 | NOERROR | ServiceEntry host, its addresses | 192.0.2.50 | 192.0.2.50",
            "vault.service.entry | A | 10.244.3.7 | NOERROR | placeholder | not exported to the client's namespace billing | 1.1.1.2",
    })
    void asAClient(String name, String type, String client, String rcode, String rule, String why, String record) throws Exception {
        JsonNode e = explain(name, type, client);
        assertEquals(rcode, e.path("rcode").asText(), e.toString());
        assertEquals(rule, e.path("rule").asText(), e.toString());
        assertTrue(e.path("why").asText().contains(why), e.toString());
        assertTrue(e.path("answer").toString().contains(record), e.toString());
    }

    @Test
    void aForwardedNameAskedTwiceIsFromTheUpstreamThenFromTheCache() throws Exception {
        JsonNode first = explain("twice.upstream.test", "A");
        JsonNode second = explain("twice.upstream.test", "A");
        assertEquals("[\"twice.upstream.test.\\t300\\tIN\\tA\\t192.0.2.77\"]", first.path("answer").toString(), first.toString());
        assertEquals("forwarded", first.path("rule").asText(), first.toString());
        assertEquals("FORWARDED", first.path("answerRule").asText(), first.toString());
        assertEquals("forwarded, cached", second.path("rule").asText(), second.toString());
        assertTrue(second.path("why").asText().contains("no upstream asked"), second.toString());
        assertTrue(second.path("answer").toString().contains("192.0.2.77"), second.toString());
    }

    @ParameterizedTest(name = "{0} {1}: {3}")
    @CsvSource(delimiter = '|', value = {
            // name | type | rcode | rule | the why says | a source object
            "web.shop.svc.cluster.local | A | NOERROR | cluster service | the local cluster east | east/SERVICE/shop/web",
            "reviews.shop.svc.cluster.local | A | NOERROR | cluster service | cluster west (not in the local cluster east | west/SERVICE/shop/reviews",
            "ratings.shop.svc.cluster.local | A | NOERROR | placeholder | namespace shop is known | ",
            "billing.service.entry | A | NOERROR | placeholder | ServiceEntry suffix | ",
            "google.com.svc.cluster.local | A | NXDOMAIN | no such name | no namespace com in any cluster | ",
            "www.google.com.shop.svc.cluster.local | A | NXDOMAIN | no such name | search-path expansion | ",
            "legacy.service.entry | A | NOERROR | ServiceEntry host, meshdns VIP | the VIP discovery allocated | west/SERVICE_ENTRY/shop/legacy",
            "api.payments.example | A | NOERROR | ServiceEntry host, its addresses | 192.0.2.10 | east/SERVICE_ENTRY/istio-system/payments-api",
            "registry.mesh.example | A | NOERROR | zone file | mesh.example.zone | ",
            "registry.nsm-system.mesh.it | SRV | NOERROR | dynamic zone | RFC 2136 | ",
            "www.example.invalid | A | REFUSED | forwarded | sent to the upstreams | ",
    })
    void everyRuleIsTold(String name, String type, String rcode, String rule, String why, String source) throws Exception {
        JsonNode e = explain(name, type);
        assertEquals(rcode, e.path("rcode").asText(), e.toString());
        assertEquals(rule, e.path("rule").asText(), e.toString());
        assertTrue(e.path("why").asText().contains(why), e.toString());
        assertTrue(e.path("snapshotVersion").asLong() > 0, e.toString());
        if (source != null) {
            String[] s = source.split("/");
            boolean found = false;
            for (JsonNode o : e.path("sources")) {
                found |= o.path("cluster").asText().equals(s[0]) && o.path("kind").asText().equals(s[1])
                        && o.path("namespace").asText().equals(s[2]) && o.path("name").asText().equals(s[3]);
            }
            assertTrue(found, "source " + source + " in " + e);
        }
        if (rcode.equals("NOERROR")) assertTrue(e.path("answer").size() > 0, e.toString());
    }

    @Test
    void theCliIsAThinClientOfTheEndpoint() throws Exception {
        Path root = QuarkusJarProcess.repositoryRoot();
        Process p = new ProcessBuilder(root.resolve("bin/meshdns").toString(), "explain", "ratings.shop.svc.cluster.local", "A",
                "--url", "http://127.0.0.1:" + services.dnsHttp).redirectErrorStream(true).start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("rule: placeholder"), out);
        assertTrue(out.contains("1.1.1.2"), out);
    }

    static JsonNode explain(String name, String type) throws Exception {
        return explain(name, type, null);
    }

    static JsonNode explain(String name, String type, String client) throws Exception {
        // Asking as another client is an operator's question: it takes the explain token.
        return new ObjectMapper().readTree(RunningServices.get("http://127.0.0.1:" + services.dnsHttp + "/v1/explain?name="
                + URLEncoder.encode(name, StandardCharsets.UTF_8) + "&type=" + type + (client == null ? "" : "&client=" + client),
                client == null ? java.util.Map.of() : java.util.Map.of("Authorization", "Bearer " + RunningServices.EXPLAIN_TOKEN)));
    }
}
