package io.meshdns.dns.forward;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import java.util.concurrent.TimeUnit;

import io.meshdns.dns.testing.BindUpstreamResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * The Forwarder bean as the app wires it from config, and its metrics at /q/metrics under CoreDNS's
 * names. The BIND upstream is GLOBAL: every @QuarkusTest of this module shares the one boot with it
 * as {@code meshdns.dns.upstreams}, so no test ever forwards to the host's real resolver.
 */
@QuarkusTest
@WithTestResource(value = BindUpstreamResource.class, scope = TestResourceScope.GLOBAL)
class ForwarderWiringTest {

    @Inject
    Forwarder forwarder;

    @ConfigProperty(name = "meshdns.dns.upstreams")
    String upstream;

    @Test
    void forwardsThroughTheCacheAndExposesCoreDnsMetrics() throws Exception {
        // The app is shared with other tests that also forward: compare counters before and after.
        String before = metrics();
        for (int id : new int[] {11, 12}) {
            Message q = Message.newQuery(Record.newRecord(Name.fromConstantString("wiring.wild.example.test."), Type.A, DClass.IN));
            q.getHeader().setID(id);
            Message r = forwarder.forward(q).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertEquals(Rcode.NOERROR, r.getRcode());
            assertTrue(r.getHeader().getFlag(org.xbill.DNS.Flags.RA));
            assertFalse(r.getHeader().getFlag(org.xbill.DNS.Flags.AA));
            assertEquals(id, r.getHeader().getID());
            assertEquals("192.0.2.7", ((ARecord) r.getSection(Section.ANSWER).get(0)).getAddress().getHostAddress());
        }
        String after = metrics();
        String to = "{to=\"" + upstream + "\"}";
        assertEquals(1, value(after, "coredns_forward_requests_total" + to) - value(before, "coredns_forward_requests_total" + to));
        String noerror = "coredns_forward_responses_total{rcode=\"NOERROR\",to=\"" + upstream + "\"}";
        assertEquals(1, value(after, noerror) - value(before, noerror));
        // CoreDNS's cache labels: server (our listener), zones (the root: the cache serves every forwarded name), type
        assertEquals(1, cache(after, "coredns_cache_hits_total", "success") - cache(before, "coredns_cache_hits_total", "success"));
        assertEquals(1, cache(after, "coredns_cache_misses_total", null) - cache(before, "coredns_cache_misses_total", null));
        assertEquals(2, cache(after, "coredns_cache_requests_total", null) - cache(before, "coredns_cache_requests_total", null),
                "requests = hits + misses");
        assertTrue(cache(after, "coredns_cache_entries", "success") >= 1);
        assertTrue(cache(after, "coredns_cache_evictions_total", "success") >= 0);
        assertTrue(after.lines().anyMatch(l -> l.startsWith("coredns_forward_request_duration_seconds_bucket{")
                && l.contains("to=\"" + upstream + "\"")), "latency histogram per upstream");
        for (String present : List.of("coredns_forward_healthcheck_failures_total" + to, "coredns_forward_max_concurrent_rejects_total",
                "meshdns_forward_loops_detected_total" + to)) {
            assertTrue(value(after, present) >= 0, present);
        }
        assertTrue(cache(after, "coredns_cache_hits_total", "denial") >= 0);
        assertTrue(cache(after, "coredns_cache_entries", "denial") >= 0);
        assertTrue(cache(after, "coredns_cache_served_stale_total", null) >= 0);
    }

    /**
     * The upstream sockets keep changing (RFC 5452): 300 queries spread over the pool's 256 sockets (and
     * with a port per query, over 300 sockets), and no meter may be registered per socket or per port. Vert.x
     * datagram sockets under Quarkus's Micrometer binder did exactly that (udp_bytes_read and
     * udp_bytes_written tagged with the local address and the sender), so /metrics and the registry
     * grew by every port the forwarder ever used.
     */
    @Test
    void upstreamSocketsLeaveNoMeterPerPort() throws Exception {
        String before = metrics();
        for (int i = 0; i < 300; i++) {
            Message q = Message.newQuery(Record.newRecord(Name.fromString("meters-" + i + ".wild.example.test."), Type.A, DClass.IN));
            assertEquals(Rcode.NOERROR, forwarder.forward(q).toCompletableFuture().get(10, TimeUnit.SECONDS).getRcode());
        }
        String after = metrics();
        List<String> added = after.lines().filter(l -> l.startsWith("udp_") && !before.contains(l.substring(0, l.lastIndexOf(' '))))
                .limit(3).toList();
        assertEquals(udpSeries(before), udpSeries(after), () -> "meters per upstream socket, e.g. " + added);
        assertTrue(after.lines().count() - before.lines().count() < 50,
                "the exposition grew by " + (after.lines().count() - before.lines().count()) + " lines over 300 forwarded queries");
    }

    private static long udpSeries(String exposition) {
        return exposition.lines().filter(l -> l.startsWith("udp_")).count();
    }

    private static String metrics() {
        return given().get("/q/metrics").then().statusCode(200).extract().asString();
    }

    /** A cache sample: {@code name{server="dns://…",[type="…",]zones="."}}; fails if absent. */
    private static double cache(String exposition, String name, String type) {
        for (String line : exposition.split("\n")) {
            if (line.startsWith(name + "{server=\"dns://") && line.contains(type == null ? "\",zones=\".\"} " : "\",type=\"" + type + "\",zones=\".\"} ")) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1).trim());
            }
        }
        throw new AssertionError(name + " (type " + type + ") with server and zones labels not exposed");
    }

    /** The value of the sample whose name and labels are exactly {@code series}; fails if absent. */
    private static double value(String exposition, String series) {
        for (String line : exposition.split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1).trim());
            }
        }
        throw new AssertionError(series + " not exposed");
    }
}
