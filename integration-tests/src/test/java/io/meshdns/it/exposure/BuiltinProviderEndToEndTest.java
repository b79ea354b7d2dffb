package io.meshdns.it.exposure;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.meshdns.it.testing.BuiltinExposure;
import io.meshdns.testsupport.LogLines;
import io.meshdns.testsupport.QuarkusJarProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.Lookup;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SRVRecord;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.TSIG;
import org.xbill.DNS.TXTRecord;
import org.xbill.DNS.Type;
import org.xbill.DNS.Update;
import org.xbill.DNS.ZoneTransferIn;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The built-in provider end to end: the packaged exposure-service, watching a fabric8 CRUD
 * Kubernetes API, publishes an NSM-style Service into the packaged dns-service's dynamic zone over
 * RFC 2136 with TSIG; dnsjava resolves it exactly as NSM does (SRV on the plain name, then A); the
 * ExternalDNS TXT ownership records are in the zone (read by TSIG AXFR); and after dns-service is
 * killed (SIGKILL) and started again on the same journal, the records are still served.
 */
class BuiltinProviderEndToEndTest {
    static final String SECRET = "aXQtZXhwb3N1cmUtc2VjcmV0LTAxMjM0NTY3ODlhYmNkZWY=";
    static final String DOMAIN = "mesh.it";
    static final String NAME = "registry.nsm-system." + DOMAIN;

    @TempDir
    Path journal;

    KubernetesMockServer kubernetes;
    NamespacedKubernetesClient client;
    QuarkusJarProcess dns;
    QuarkusJarProcess exposure;

    @BeforeEach
    void startKubernetes() {
        kubernetes = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
        kubernetes.init(InetAddress.getLoopbackAddress(), 0);
        client = kubernetes.createClient();
    }

    @AfterEach
    void stopAll() throws Exception {
        if (exposure != null) {
            exposure.close();
        }
        if (dns != null) {
            dns.close();
        }
        client.close();
        kubernetes.destroy();
    }

    QuarkusJarProcess startDns(int port) throws Exception {
        QuarkusJarProcess p = start("dns-service", Map.of(
                "meshdns.dns.port", String.valueOf(port),
                "meshdns.dns.dynamic-zones", DOMAIN,
                "meshdns.dns.tsig-keys", "exposure:hmac-sha256:" + SECRET,
                "meshdns.dns.journal-dir", journal.toString(),
                "quarkus.http.port", "0"));
        p.awaitLine(LogLines.DNS_SERVICE_PORT, Duration.ofSeconds(60));
        return p;
    }

    @Test
    void exposureServicePublishesIntoDnsServiceAndTheRecordsSurviveARestart() throws Exception {
        dns = startDns(0);
        int port = dns.awaitPort(LogLines.DNS_SERVICE_PORT, Duration.ofSeconds(5));

        exposure = startExposure(port);

        Service service = BuiltinExposure.nsmRegistry("203.0.113.10");
        client.services().inNamespace("nsm-system").resource(service).create();
        client.services().inNamespace("nsm-system").resource(service).updateStatus();

        try {
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                    .untilAsserted(() -> assertNsmResolves(port));
        } catch (Throwable e) {
            throw new AssertionError("exposure-service output:\n" + exposure.output() + "\n\ndns-service output:\n" + dns.output(), e);
        }

        // ExternalDNS-compatible ownership, read back the way the provider reads it: AXFR with TSIG.
        List<Record> zone = axfr(port);
        List<String> claims = zone.stream().filter(r -> r.getType() == Type.TXT)
                .map(r -> ((TXTRecord) r).getStrings().get(0)).toList();
        assertTrue(claims.stream().anyMatch(c -> c.startsWith("heritage=external-dns,external-dns/owner=it-cluster,")
                && c.contains("external-dns/resource=service/nsm-system/registry")), "TXT claims: " + claims);
        assertTrue(zone.stream().anyMatch(r -> r.getType() == Type.TXT && r.getName().toString().startsWith("srv-registry.")),
                "a typed TXT name for the SRV RRset: " + zone);

        // Restart: stop the writer first so nothing can re-publish, then kill dns-service hard.
        exposure.close();
        exposure = null;
        dns.kill();
        dns = startDns(port);
        assertNsmResolves(port);
        assertEquals(zone.size(), axfr(port).size(), "the whole zone came back from the journal");
    }

    /** A packaged service with 256 MiB of heap, given 20 s after SIGTERM before SIGKILL. */
    static QuarkusJarProcess start(String module, Map<String, String> properties) throws Exception {
        return QuarkusJarProcess.module(module).jvmOptions("-Xmx256m").properties(properties).stopGrace(Duration.ofSeconds(20)).start();
    }

    QuarkusJarProcess startExposure(int port) throws Exception {
        Map<String, String> properties = BuiltinExposure.properties("it-cluster", port, DOMAIN, SECRET, kubernetes.url("/"));
        properties.put("quarkus.http.port", "0");
        return start("exposure-service", properties);
    }

    @Test
    void updatesAndDeletesReachDnsServiceAndForeignRecordsAreNeverTouched() throws Exception {
        dns = startDns(0);
        int port = dns.awaitPort(LogLines.DNS_SERVICE_PORT, Duration.ofSeconds(5));
        // Records somebody else wrote into the zone before we came: no ownership TXT, so not ours.
        Update foreign = new Update(Name.fromString(DOMAIN + "."));
        foreign.add(Name.fromString("foreign." + DOMAIN + "."), Type.A, 300, "198.51.100.1");
        foreign.add(Name.fromString("registry.nsm-system." + DOMAIN + "."), Type.TXT, 300, "\"hand-written\"");
        SimpleResolver writer = new SimpleResolver(InetAddress.getLoopbackAddress());
        writer.setPort(port);
        writer.setTCP(true);
        writer.setTSIGKey(new TSIG(TSIG.HMAC_SHA256, "exposure.", SECRET));
        assertEquals(Rcode.NOERROR, writer.send(foreign).getRcode());
        List<String> foreignBefore = foreignRecords(axfr(port));

        exposure = startExposure(port);
        client.services().inNamespace("nsm-system").resource(BuiltinExposure.nsmRegistry("203.0.113.10")).create();
        client.services().inNamespace("nsm-system").resource(BuiltinExposure.nsmRegistry("203.0.113.10")).updateStatus();
        try {
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                    .untilAsserted(() -> assertNsmResolves(port, "203.0.113.10"));
            // The load balancer moves: the A record follows (RRset replaced, SRV kept).
            client.services().inNamespace("nsm-system").resource(BuiltinExposure.nsmRegistry("203.0.113.20")).updateStatus();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                    .untilAsserted(() -> assertNsmResolves(port, "203.0.113.20"));
            // The Service goes away: our A and SRV go with it (policy sync).
            client.services().inNamespace("nsm-system").withName("registry").delete();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                List<Record> zone = axfr(port);
                assertTrue(zone.stream().noneMatch(r -> r.getName().toString().startsWith("registry.nsm-system.")
                        && (r.getType() == Type.A || r.getType() == Type.SRV)), "our records deleted: " + zone);
            });
        } catch (Throwable e) {
            throw new AssertionError("exposure-service output:\n" + exposure.output() + "\n\ndns-service output:\n" + dns.output(), e);
        }
        assertEquals(foreignBefore, foreignRecords(axfr(port)), "records we do not own are never changed or deleted");
    }

    static List<String> foreignRecords(List<Record> zone) {
        return zone.stream().filter(r -> r.getName().toString().startsWith("foreign.")
                        || (r.getType() == Type.TXT && ((TXTRecord) r).getStrings().get(0).equals("hand-written")))
                .map(Record::toString).sorted().toList();
    }

    /** NSM's registry-proxy-dns: LookupSRV("", "", name) for the port, then A on the same name. */
    static void assertNsmResolves(int port) throws Exception {
        assertNsmResolves(port, "203.0.113.10");
    }

    static void assertNsmResolves(int port, String expectedIp) throws Exception {
        SimpleResolver resolver = new SimpleResolver(InetAddress.getLoopbackAddress());
        resolver.setPort(port);
        resolver.setTimeout(Duration.ofSeconds(2));
        Lookup srv = new Lookup(NAME, Type.SRV);
        srv.setResolver(resolver);
        srv.setCache(null);
        Record[] srvAnswers = srv.run();
        assertEquals(Lookup.SUCCESSFUL, srv.getResult(), "SRV " + NAME + ": " + srv.getErrorString());
        SRVRecord record = (SRVRecord) srvAnswers[0];
        assertEquals(5002, record.getPort());
        assertEquals(Name.fromString(NAME + "."), record.getTarget());

        Lookup a = new Lookup(NAME, Type.A);
        a.setResolver(resolver);
        a.setCache(null);
        Record[] aAnswers = a.run();
        assertEquals(Lookup.SUCCESSFUL, a.getResult(), "A " + NAME + ": " + a.getErrorString());
        assertEquals(expectedIp, ((ARecord) aAnswers[0]).getAddress().getHostAddress());
    }

    static List<Record> axfr(int port) throws Exception {
        ZoneTransferIn xfr = ZoneTransferIn.newAXFR(Name.fromString(DOMAIN + "."), "127.0.0.1", port,
                new TSIG(TSIG.HMAC_SHA256, "exposure.", SECRET));
        xfr.setTimeout(Duration.ofSeconds(10));
        xfr.run();
        return xfr.getAXFR();
    }
}
