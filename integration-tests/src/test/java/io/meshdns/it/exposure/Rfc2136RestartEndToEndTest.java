package io.meshdns.it.exposure;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.meshdns.testsupport.QuarkusJarProcess;
import io.meshdns.testsupport.dns.BindServer;
import io.meshdns.testsupport.dns.DnsServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.TSIG;
import org.xbill.DNS.TXTRecord;
import org.xbill.DNS.Type;
import org.xbill.DNS.ZoneTransferIn;

/**
 * A restart in the middle of a pass converges: the packaged exposure-service publishes 300 Services
 * from manifests into a real BIND9 with one operation per UPDATE message, is killed (SIGKILL, by the
 * PID of the process this test started) while that pass is under way, is started again, and the zone
 * ends exactly as desired: every record with its ownership TXT, and the foreign records as seeded.
 */
class Rfc2136RestartEndToEndTest {
    static final String ZONE = "restart.it";
    static final int SERVICES = 300;
    static final String FOREIGN = """
            foreign IN A 198.51.100.1
            foreign IN TXT "hand-made"
            s7 IN TXT "hand-written next to a published name"
            mail IN MX 10 mx.example.
            """;

    @TempDir
    Path manifests;

    BindServer bind;
    QuarkusJarProcess exposure;

    @AfterEach
    void stop() throws Exception {
        if (exposure != null) exposure.close();
        if (bind != null) bind.close();
    }

    @Test
    void aKillInTheMiddleOfAPassConvergesAfterTheRestart() throws Exception {
        bind = new BindServer("hmac-sha256", List.of(ZONE));
        bind.start(FOREIGN);
        Set<String> foreignBefore = foreign(axfr());
        var yaml = new StringBuilder();
        for (int i = 0; i < SERVICES; i++) {
            yaml.append("""
                    apiVersion: v1
                    kind: Service
                    metadata:
                      name: s%d
                      namespace: shop
                      annotations:
                        external-dns.kubernetes.io/hostname: s%d.%s
                    spec:
                      type: LoadBalancer
                      ports: [{port: 80}]
                    status:
                      loadBalancer:
                        ingress: [{ip: 10.9.%d.%d}]
                    ---
                    """.formatted(i, i, ZONE, i / 256, i % 256));
        }
        Files.writeString(manifests.resolve("services.yaml"), yaml);

        exposure = startExposure();
        // kill once part of the pass is in the zone (one operation per UPDATE: hundreds of messages)
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(20))
                .until(() -> published(axfr()).size() >= 20);
        exposure.kill();
        exposure = null;
        int atKill = published(axfr()).size();
        assertTrue(atKill < SERVICES, "killed in the middle of the pass: " + atKill + " of " + SERVICES + " published");

        exposure = startExposure();
        try {
            await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(500))
                    .untilAsserted(() -> assertEquals(SERVICES, published(axfr()).size()));
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                    .untilAsserted(() -> assertZoneExactlyAsDesired(axfr(), foreignBefore));
        } catch (Throwable e) {
            throw new AssertionError("killed at " + atKill + " published; exposure-service output:\n" + exposure.output(), e);
        }
    }

    void assertZoneExactlyAsDesired(List<Record> zone, Set<String> foreignBefore) {
        var a = new TreeSet<String>();
        var claims = new TreeSet<String>();
        for (Record r : zone) {
            String name = r.getName().toString(true);
            if (r.getType() == Type.A && name.matches("s\\d+\\." + ZONE.replace(".", "\\."))) a.add(name + " " + r.rdataToString());
            if (r.getType() == Type.TXT && name.startsWith("a-s")) {
                claims.add(name + " " + String.join("", ((TXTRecord) r).getStrings()));
            }
        }
        var wantA = new TreeSet<String>();
        var wantClaims = new TreeSet<String>();
        for (int i = 0; i < SERVICES; i++) {
            wantA.add("s" + i + "." + ZONE + " 10.9." + (i / 256) + "." + (i % 256));
            wantClaims.add("a-s" + i + "." + ZONE + " heritage=external-dns,external-dns/owner=restart-owner,external-dns/resource=service/shop/s" + i);
        }
        assertEquals(wantA, a, "every A record exactly once");
        assertEquals(wantClaims, claims, "exactly one ownership TXT per record");
        assertEquals(foreignBefore, foreign(zone), "foreign records untouched");
    }

    /** Our published names (A records at s<i>). */
    static Set<String> published(List<Record> zone) {
        return zone.stream().filter(r -> r.getType() == Type.A && r.getName().toString(true).matches("s\\d+\\.restart\\.it"))
                .map(r -> r.getName().toString(true)).collect(Collectors.toCollection(TreeSet::new));
    }

    /** Everything that is neither ours (s<i> A, a-s<i> TXT) nor SOA/NS. */
    static Set<String> foreign(List<Record> zone) {
        return zone.stream()
                .filter(r -> r.getType() != Type.SOA && r.getType() != Type.NS)
                .filter(r -> !(r.getType() == Type.A && r.getName().toString(true).matches("s\\d+\\.restart\\.it")))
                .filter(r -> !(r.getType() == Type.TXT && r.getName().toString(true).startsWith("a-s")))
                .map(Record::toString).collect(Collectors.toCollection(TreeSet::new));
    }

    List<Record> axfr() throws Exception {
        ZoneTransferIn xfr = ZoneTransferIn.newAXFR(Name.fromString(ZONE + "."), "127.0.0.1", bind.port(),
                new TSIG(TSIG.HMAC_SHA256, DnsServer.KEY_NAME + ".", bind.secret()));
        xfr.setTimeout(Duration.ofSeconds(10));
        xfr.run();
        return xfr.getAXFR();
    }

    QuarkusJarProcess startExposure() throws Exception {
        return QuarkusJarProcess.module("exposure-service").jvmOptions("-Xmx256m").stopGrace(Duration.ofSeconds(20)).properties(Map.ofEntries(
                Map.entry("meshdns.exposure.policy", "sync"),
                Map.entry("meshdns.exposure.owner-id", "restart-owner"),
                Map.entry("meshdns.exposure.provider", "rfc2136"),
                Map.entry("meshdns.exposure.rfc2136.host", "127.0.0.1"),
                Map.entry("meshdns.exposure.rfc2136.port", String.valueOf(bind.port())),
                Map.entry("meshdns.exposure.rfc2136.zones", ZONE),
                Map.entry("meshdns.exposure.rfc2136.tsig-key-name", DnsServer.KEY_NAME),
                Map.entry("meshdns.exposure.rfc2136.tsig-secret", bind.secret()),
                Map.entry("meshdns.exposure.rfc2136.tsig-algorithm", "hmac-sha256"),
                Map.entry("meshdns.exposure.rfc2136.batch-change-size", "1"),
                Map.entry("meshdns.exposure.manifest-dirs", manifests.toString()),
                Map.entry("meshdns.exposure.sources", "service"),
                Map.entry("meshdns.exposure.interval", "2s"),
                Map.entry("quarkus.kubernetes-client.devservices.enabled", "false"),
                Map.entry("quarkus.http.port", "0"))).start();
    }
}
