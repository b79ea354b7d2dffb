package io.meshdns.dns.forward;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;

import io.meshdns.dns.testing.BindUpstreamResource;
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

/** The Forwarder bean as the app wires it from config, and its metrics at /q/metrics under CoreDNS's names. */
@QuarkusTest
@WithTestResource(BindUpstreamResource.class)
class ForwarderWiringTest {

    @Inject
    Forwarder forwarder;

    @ConfigProperty(name = "meshdns.dns.upstreams")
    String upstream;

    @Test
    void forwardsThroughTheCacheAndExposesCoreDnsMetrics() throws Exception {
        for (int id : new int[] {11, 12}) {
            Message q = Message.newQuery(Record.newRecord(Name.fromConstantString("www.example.test."), Type.A, DClass.IN));
            q.getHeader().setID(id);
            Message r = forwarder.forward(q).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertEquals(Rcode.NOERROR, r.getRcode());
            assertEquals(id, r.getHeader().getID());
            assertEquals("192.0.2.1", ((ARecord) r.getSection(Section.ANSWER).get(0)).getAddress().getHostAddress());
        }
        given().get("/q/metrics").then().statusCode(200)
                .body(containsString("coredns_forward_requests_total{to=\"" + upstream + "\"} 1.0"))
                .body(containsString("coredns_forward_responses_total{rcode=\"NOERROR\",to=\"" + upstream + "\"} 1.0"))
                .body(containsString("coredns_forward_request_duration_seconds_bucket{to=\"" + upstream + "\""))
                .body(containsString("coredns_forward_healthcheck_failures_total{to=\"" + upstream + "\"} 0.0"))
                .body(containsString("coredns_forward_max_concurrent_rejects_total 0.0"))
                .body(containsString("coredns_cache_hits_total{type=\"success\"} 1.0"))
                .body(containsString("coredns_cache_hits_total{type=\"denial\"} 0.0"))
                .body(containsString("coredns_cache_misses_total 1.0"))
                .body(containsString("coredns_cache_entries{type=\"success\"} 1.0"))
                .body(containsString("coredns_cache_served_stale_total 0.0"))
                .body(containsString("meshdns_forward_loops_detected_total{to=\"" + upstream + "\"} 0.0"));
    }
}
