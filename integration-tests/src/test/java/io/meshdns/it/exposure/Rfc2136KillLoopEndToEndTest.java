package io.meshdns.it.exposure;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.meshdns.testsupport.QuarkusJarProcess;
import io.meshdns.testsupport.dns.BindServer;
import io.meshdns.testsupport.dns.DnsServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.TSIG;
import org.xbill.DNS.TXTRecord;
import org.xbill.DNS.Type;
import org.xbill.DNS.ZoneTransferIn;
import org.xbill.DNS.utils.base16;

/**
 * SIGKILL at random points of the pass converges: the packaged exposure-service publishes a few hundred
 * RRsets (Services as A, DNSEndpoints as A with two targets, TXT and CNAME) from manifests into a real
 * BIND9, two changes per UPDATE message; it is killed (SIGKILL, by the PID of the process this test
 * started) after a seeded random number of that pass's UPDATE messages, the desired set is changed
 * (adds, target changes, deletes) and it is started again; after the last start it runs to the end.
 * The zone (AXFR) must then be exactly the desired records, each with one ownership TXT, plus the
 * foreign records byte for byte as seeded: other owners' claims (one with our id as a prefix), records
 * with no claim at all, names one character off ours, text at our claim names and a name below ours.
 * Three of the foreign RRsets are also desired by us and must still be left alone.
 *
 * <p>UPDATE messages are counted by BIND9's SOA serial, which moves once per UPDATE that changed the zone.
 * The seed is printed ({@code KILL-LOOP seed=}); {@code -Dmeshdns.faults.seed=<n>} repeats a run.
 */
class Rfc2136KillLoopEndToEndTest {
    static final String ZONE = "kill.it";
    static final String OWNER = "kill-owner";
    static final int BATCH = 2;
    static final String FOREIGN = """
            foreign IN A 198.51.100.1
            foreign IN TXT "hand-made"
            mail IN MX 10 mx.example.
            s7 IN TXT "hand-written next to a published name"
            s7x IN A 198.51.100.7
            xs7 IN A 198.51.100.8
            deep.s7 IN A 198.51.100.9
            a-s7x IN TXT "not a claim, at a claim-like name"
            a-s8 IN TXT "plain text at our claim name"
            other IN A 198.51.100.2
            a-other IN TXT "heritage=external-dns,external-dns/owner=other-cluster,external-dns/resource=service/x/other"
            taken IN A 198.51.100.3
            a-taken IN TXT "heritage=external-dns,external-dns/owner=other-cluster,external-dns/resource=service/shop/taken"
            lookalike IN A 198.51.100.4
            a-lookalike IN TXT "heritage=external-dns,external-dns/owner=kill-owner-2,external-dns/resource=service/shop/lookalike"
            unowned IN A 198.51.100.5
            """;
    /** Desired by us, but foreign-owned (or owned by nobody) in the zone: never published, never touched. */
    static final List<String> FOREIGN_BUT_DESIRED = List.of("taken", "lookalike", "unowned");
    /** Ours with foreign records beside them (s7: text at the name, s8: text at its claim name): changed, never deleted. */
    static final List<String> PINNED = List.of("s7", "s8");

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
    void threeKillsWithChangesBetweenThemConverge() throws Exception {
        killLoop(3, 150, 12);
    }

    /** {@code mvn -B -Pfaults -pl integration-tests -am verify -Dtest=Rfc2136KillLoopEndToEndTest -Dsurefire.failIfNoSpecifiedTests=false}. */
    @Test
    @Tag("faults")
    void twentyKillsWithChangesBetweenThemConverge() throws Exception {
        killLoop(20, 300, 25);
    }

    /**
     * @param services Services at the first start (DNSEndpoints: a tenth of that, three RRsets each)
     * @param churn    per restart: this many Services added, this many changed, this many deleted (a tenth for DNSEndpoints)
     */
    void killLoop(int kills, int services, int churn) throws Exception {
        long seed = Long.getLong("meshdns.faults.seed", System.nanoTime());
        System.out.println("KILL-LOOP seed=" + seed + " kills=" + kills);
        var random = new Random(seed);
        bind = new BindServer("hmac-sha256", List.of(ZONE));
        bind.start(FOREIGN);
        List<String> foreignBefore = wire(axfr());
        long firstSerial = serial();

        var desired = new Desired();
        for (int i = 0; i < services; i++) desired.addService(random);
        for (int i = 0; i < services / 10; i++) desired.addDnsEndpoint(random);

        var kill = new ArrayList<String>();
        int midPass = 0;
        for (int round = 0; round < kills; round++) {
            desired.write(manifests);
            long before = serial();
            exposure = startExposure();
            int changes = Integer.parseInt(exposure.awaitLine(Pattern.compile("applying (\\d+) changes"), Duration.ofSeconds(120)));
            long applyingAt = System.nanoTime();
            int messages = (changes + BATCH - 1) / BATCH;
            int after = random.nextInt(messages); // kill once this many of the pass's UPDATEs are in the zone
            long sentAtKill = awaitUpdates(before, after);
            exposure.kill();
            exposure = null;
            long sent = serial() - before;
            if (sent < messages) midPass++;
            kill.add("%d/%d UPDATEs after %d ms".formatted(sent, messages, (System.nanoTime() - applyingAt) / 1_000_000));
            assertTrue(sentAtKill <= sent, "the serial only moves forward");
            desired.churn(random, churn, Math.max(1, churn / 10));
        }
        desired.write(manifests);
        long lastStart = System.nanoTime();
        exposure = startExposure();
        try {
            await().atMost(Duration.ofSeconds(240)).pollInterval(Duration.ofMillis(200))
                    .until(() -> ours(axfr(), foreignBefore).equals(desired.expected()));
        } catch (Throwable e) {
            throw new AssertionError("seed " + seed + ", kills " + kill + "\n" + difference(axfr(), foreignBefore, desired)
                    + "\nexposure-service output:\n" + exposure.output(), e);
        }
        long convergedMs = (System.nanoTime() - lastStart) / 1_000_000;
        // converged means stable: two more intervals (2 s each) of passes write nothing, and the zone stays as it is
        long settled = serial();
        Thread.sleep(5_000);
        assertEquals(settled, serial(), "seed " + seed + ": passes after convergence still write:\n" + exposure.output());
        List<Record> zone = axfr();
        assertZoneExactly(zone, foreignBefore, desired, "seed " + seed);
        System.out.printf("KILL-FIGURE seed=%d kills=%d killed mid-pass=%d converged %d ms after the last start, "
                + "%d UPDATEs applied in all (%d RRsets desired at the end); kill points: %s%n",
                seed, kills, midPass, convergedMs, serial() - firstSerial, desired.rrsets(), kill);
        assertTrue(midPass >= (kills + 1) / 2, "at least half of the kills landed inside a pass: " + kill);
    }

    /** Waits until {@code count} UPDATEs since {@code before} are in the zone (or the pass has stopped writing); returns how many. */
    long awaitUpdates(long before, int count) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        long seen = 0;
        long lastMove = System.nanoTime();
        while (System.nanoTime() < deadline) {
            long now = serial() - before;
            if (now >= count) return now;
            if (now != seen) {
                seen = now;
                lastMove = System.nanoTime();
            } else if (seen > 0 && System.nanoTime() - lastMove > Duration.ofSeconds(3).toNanos()) {
                return now; // the pass wrote fewer messages than estimated and is over
            }
            Thread.sleep(2);
        }
        return seen;
    }

    /**
     * The zone is the foreign records byte for byte plus exactly the desired ones: every RRset of ours with
     * its one ownership TXT, no claim without its RRset, nothing twice.
     */
    static void assertZoneExactly(List<Record> zone, List<String> foreignBefore, Desired desired, String context) {
        List<String> wire = wire(zone);
        for (String f : foreignBefore) assertTrue(wire.contains(f), context + ": foreign record changed or gone: " + f);
        assertEquals(desired.expected(), ours(zone, foreignBefore), context + ": zone minus the foreign records, "
                + difference(zone, foreignBefore, desired));
        var claims = new TreeMap<String, Integer>();
        var data = new TreeMap<String, Integer>();
        for (Record r : zone) {
            String text = r instanceof TXTRecord t ? String.join("", t.getStrings()) : "";
            if (text.contains("external-dns/owner=" + OWNER + ",")) {
                claims.merge(r.getName().toString(true), 1, Integer::sum);
            } else if (wire(List.of(r)).stream().noneMatch(foreignBefore::contains) && r.getType() != Type.SOA) {
                data.merge(Type.string(r.getType()).toLowerCase() + "-" + r.getName().toString(true), 1, Integer::sum);
            }
        }
        assertEquals(data.keySet(), claims.keySet(), context + ": one claim per RRset of ours, no claim without its RRset");
        claims.forEach((name, n) -> assertEquals(1, n, context + ": claims at " + name));
    }

    /** The records the zone lacks and those it has too many of, against foreign + desired. */
    static String difference(List<Record> zone, List<String> foreignBefore, Desired desired) {
        var have = new ArrayList<>(ours(zone, foreignBefore));
        var missing = new ArrayList<String>();
        for (String want : desired.expected()) {
            if (!have.remove(want)) missing.add(want);
        }
        var wire = wire(zone);
        var foreignGone = foreignBefore.stream().filter(f -> !wire.contains(f)).toList();
        return "missing: " + missing + "\nextra: " + have + "\nforeign changed or gone: " + foreignGone;
    }

    /** What is in the zone besides {@code foreign} (and the SOA), as {@code name TYPE rdata}, sorted, duplicates kept. */
    static List<String> ours(List<Record> zone, List<String> foreign) {
        return zone.stream().filter(r -> r.getType() != Type.SOA && !foreign.contains(wire(List.of(r)).get(0)))
                .map(r -> r.getName().toString(true) + " " + Type.string(r.getType()) + " " + rdata(r))
                .sorted().toList();
    }

    /** Name, class, type, TTL and rdata bytes of each record (no SOA: its serial moves with every UPDATE). */
    static List<String> wire(List<Record> zone) {
        return zone.stream().filter(r -> r.getType() != Type.SOA)
                .map(r -> r.getName() + " " + DClass.string(r.getDClass()) + " " + Type.string(r.getType()) + " " + r.getTTL()
                        + " " + base16.toString(r.rdataToWireCanonical()))
                .sorted().toList();
    }

    List<Record> axfr() throws Exception {
        ZoneTransferIn xfr = ZoneTransferIn.newAXFR(Name.fromString(ZONE + "."), "127.0.0.1", bind.port(),
                new TSIG(TSIG.HMAC_SHA256, DnsServer.KEY_NAME + ".", bind.secret()));
        xfr.setTimeout(Duration.ofSeconds(10));
        xfr.run();
        return xfr.getAXFR();
    }

    long serial() throws Exception {
        SimpleResolver resolver = bind.resolver();
        resolver.setTimeout(Duration.ofSeconds(2));
        Message answer = resolver.send(Message.newQuery(Record.newRecord(Name.fromString(ZONE + "."), Type.SOA, DClass.IN)));
        return ((SOARecord) answer.getSection(Section.ANSWER).get(0)).getSerial();
    }

    QuarkusJarProcess startExposure() throws Exception {
        return QuarkusJarProcess.module("exposure-service").jvmOptions(QuarkusJarProcess.FAST_START_JVM)
                .stopGrace(Duration.ofSeconds(20)).properties(Map.ofEntries(
                        Map.entry("meshdns.exposure.policy", "sync"),
                        Map.entry("meshdns.exposure.owner-id", OWNER),
                        Map.entry("meshdns.exposure.provider", "rfc2136"),
                        Map.entry("meshdns.exposure.rfc2136.host", "127.0.0.1"),
                        Map.entry("meshdns.exposure.rfc2136.port", String.valueOf(bind.port())),
                        Map.entry("meshdns.exposure.rfc2136.zones", ZONE),
                        Map.entry("meshdns.exposure.rfc2136.tsig-key-name", DnsServer.KEY_NAME),
                        Map.entry("meshdns.exposure.rfc2136.tsig-secret", bind.secret()),
                        Map.entry("meshdns.exposure.rfc2136.tsig-algorithm", "hmac-sha256"),
                        Map.entry("meshdns.exposure.rfc2136.batch-change-size", String.valueOf(BATCH)),
                        Map.entry("meshdns.exposure.manifest-dirs", manifests.toString()),
                        Map.entry("meshdns.exposure.interval", "2s"),
                        Map.entry("quarkus.kubernetes-client.devservices.enabled", "false"),
                        Map.entry("quarkus.http.port", "0"))).start();
    }

    /** The desired set as manifests, and the records it must leave in the zone. */
    static final class Desired {
        /** Service name → its LoadBalancer IP (published as {@code <name>.kill.it A}). */
        final TreeMap<String, String> services = new TreeMap<>();
        /** DNSEndpoint name → version: {@code <name> A} two targets, {@code <name> TXT}, {@code c<name> CNAME}. */
        final TreeMap<String, Integer> dnsEndpoints = new TreeMap<>();
        int nextService;
        int nextDnsEndpoint;

        Desired() {
            FOREIGN_BUT_DESIRED.forEach(name -> services.put(name, "10.99.0.1"));
        }

        void addService(Random random) {
            services.put("s" + nextService++, ip(random));
        }

        void addDnsEndpoint(Random random) {
            dnsEndpoints.put("d" + nextDnsEndpoint++, random.nextInt(1000));
        }

        void churn(Random random, int serviceChanges, int dnsEndpointChanges) {
            var ours = new ArrayList<>(services.keySet());
            ours.removeAll(FOREIGN_BUT_DESIRED);
            var deletable = new ArrayList<>(ours);
            deletable.removeAll(PINNED);
            for (int i = 0; i < serviceChanges && !deletable.isEmpty(); i++) {
                String gone = deletable.remove(random.nextInt(deletable.size()));
                services.remove(gone);
                ours.remove(gone);
            }
            for (int i = 0; i < serviceChanges && !ours.isEmpty(); i++) services.put(ours.remove(random.nextInt(ours.size())), ip(random));
            for (int i = 0; i < serviceChanges; i++) addService(random);
            var eps = new ArrayList<>(dnsEndpoints.keySet());
            for (int i = 0; i < dnsEndpointChanges && !eps.isEmpty(); i++) dnsEndpoints.remove(eps.remove(random.nextInt(eps.size())));
            for (int i = 0; i < dnsEndpointChanges && !eps.isEmpty(); i++) dnsEndpoints.merge(eps.remove(random.nextInt(eps.size())), 1, Integer::sum);
            for (int i = 0; i < dnsEndpointChanges; i++) addDnsEndpoint(random);
        }

        static String ip(Random random) {
            return "10." + random.nextInt(1, 99) + "." + random.nextInt(256) + "." + random.nextInt(1, 255);
        }

        int rrsets() {
            return services.size() - FOREIGN_BUT_DESIRED.size() + 3 * dnsEndpoints.size();
        }

        /** Our records as {@link #ours} renders them: data plus one claim per RRset; the foreign-owned names are not ours. */
        List<String> expected() {
            var out = new ArrayList<String>();
            services.forEach((name, ip) -> {
                if (FOREIGN_BUT_DESIRED.contains(name)) return;
                out.add(name + "." + ZONE + " A " + ip);
                out.add(claim("a-" + name, "service/shop/" + name));
            });
            dnsEndpoints.forEach((name, v) -> {
                String resource = "crd/shop/" + name;
                out.add(name + "." + ZONE + " A 10.200." + (v % 250) + ".1");
                out.add(name + "." + ZONE + " A 10.200." + (v % 250) + ".2");
                out.add(claim("a-" + name, resource));
                out.add(name + "." + ZONE + " TXT \"text of " + name + " version " + v + "\"");
                out.add(claim("txt-" + name, resource));
                out.add("c" + name + "." + ZONE + " CNAME target-" + v + ".example.net.");
                out.add(claim("cname-c" + name, resource));
            });
            return out.stream().sorted().toList();
        }

        static String claim(String txtName, String resource) {
            return txtName + "." + ZONE + " TXT \"heritage=external-dns,external-dns/owner=" + OWNER + ",external-dns/resource=" + resource + "\"";
        }

        /** Writes the manifests (each file replaced whole: a start never reads half a file). */
        void write(Path dir) throws Exception {
            var yaml = new StringBuilder();
            services.forEach((name, ip) -> yaml.append("""
                    apiVersion: v1
                    kind: Service
                    metadata:
                      name: %s
                      namespace: shop
                      annotations:
                        external-dns.kubernetes.io/hostname: %s.%s
                    spec:
                      type: LoadBalancer
                      ports: [{port: 80}]
                    status:
                      loadBalancer:
                        ingress: [{ip: %s}]
                    ---
                    """.formatted(name, name, ZONE, ip)));
            dnsEndpoints.forEach((name, v) -> yaml.append("""
                    apiVersion: externaldns.k8s.io/v1alpha1
                    kind: DNSEndpoint
                    metadata:
                      name: %1$s
                      namespace: shop
                    spec:
                      endpoints:
                      - {dnsName: %1$s.%2$s, recordType: A, targets: [10.200.%3$d.1, 10.200.%3$d.2]}
                      - {dnsName: %1$s.%2$s, recordType: TXT, targets: ["text of %1$s version %4$d"]}
                      - {dnsName: c%1$s.%2$s, recordType: CNAME, targets: [target-%4$d.example.net]}
                    ---
                    """.formatted(name, ZONE, v % 250, v)));
            Path tmp = dir.resolve("desired.yaml.tmp");
            Files.writeString(tmp, yaml);
            Files.move(tmp, dir.resolve("desired.yaml"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
    }

    /** TXT with every string quoted, as the expectations write it (dnsjava 3.7 prints strings without blanks bare). */
    private static String rdata(Record r) {
        if (r instanceof TXTRecord t) {
            return String.join(" ", t.getStrings().stream().map(s -> "\"" + s + "\"").toList());
        }
        return r.rdataToString();
    }
}
