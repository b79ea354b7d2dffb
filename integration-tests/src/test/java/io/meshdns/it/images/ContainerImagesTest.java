package io.meshdns.it.images;

import io.meshdns.it.testing.Http;
import io.meshdns.testsupport.Commands;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.meshdns.testsupport.dns.LoopbackPorts;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

import java.io.IOException;
import java.net.InetAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The images bin/build-images makes, with no registry, run the way the manifests run them:
 * {@code --read-only} root, uid 65534, every capability dropped, a tmpfs at /tmp (the manifests'
 * emptyDir), explicit ulimits. discovery-service and dns-service answer the bundled two-cluster
 * example (examples/clusters) over real sockets; exposure-service and edge start and report live;
 * port 53 binds with NET_BIND_SERVICE alone (and not without it). Image sizes and start times go to
 * target/images/measurements.txt. Skipped only when podman is not installed.
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class ContainerImagesTest {
    private static final Path ROOT = Path.of(System.getProperty("meshdns.root", ".."));
    private static final String TAG = "it-" + ProcessHandle.current().pid();
    private static final String TOKEN = "it-token-" + System.nanoTime();
    private static final List<String> CONTAINERS = new ArrayList<>();
    private static final Map<String, String> MEASURED = new LinkedHashMap<>();

    @BeforeAll
    static void buildImages() throws Exception {
        boolean podman;
        try {
            podman = new ProcessBuilder("podman", "--version").redirectErrorStream(true).start().waitFor() == 0;
        } catch (IOException e) {
            podman = false;
        }
        Assumptions.assumeTrue(podman, "podman is not installed: bin/build-images and the image runs need it (bin/install-test-deps installs it)");
        long t0 = System.nanoTime();
        String out = run(Duration.ofMinutes(10), ROOT.resolve("bin/build-images").toString(), "--no-maven", "--tag", TAG);
        MEASURED.put("bin/build-images (no Maven)", seconds(t0));
        for (String line : out.split("\n")) {
            String[] f = line.trim().split(" ");
            if (f.length == 3 && f[0].startsWith("localhost/meshdns/")) MEASURED.put("image " + f[0], f[1] + " " + f[2]);
        }
    }

    /** Each test's containers go when it ends: the next one runs on a quiet machine. */
    @AfterEach
    void removeContainers() throws Exception {
        for (String c : CONTAINERS) runQuietly("podman", "rm", "-f", "-t", "2", c);
        CONTAINERS.clear();
    }

    @AfterAll
    static void cleanUp() throws Exception {
        if (!MEASURED.isEmpty()) {
            StringBuilder text = new StringBuilder();
            MEASURED.forEach((k, v) -> text.append(k).append(": ").append(v).append('\n'));
            System.out.print(text);
            Path file = ROOT.resolve("integration-tests/target/images-measurements.txt");
            Files.createDirectories(file.getParent());
            Files.writeString(file, text);
        }
        for (String image : List.of("dns-service", "discovery-service", "exposure-service", "edge", "jre-net", "jre")) {
            runQuietly("podman", "rmi", "-f", "localhost/meshdns/" + image + ":" + TAG);
        }
    }

    @Test
    void discoveryAndDnsServiceImagesAnswerTheTwoClusterExample() throws Exception {
        int discoveryHttp = LoopbackPorts.pick();
        long t0 = System.nanoTime();
        start("discovery-service", List.of("-v", ROOT.resolve("examples/clusters").toAbsolutePath() + ":/etc/meshdns/clusters:ro"), Map.of(
                "QUARKUS_HTTP_PORT", String.valueOf(discoveryHttp),
                "MESHDNS_DISCOVERY_ENABLED_LOCAL_CLUSTER", "false",
                "MESHDNS_DISCOVERY_MANIFEST_DIRS", "/etc/meshdns/clusters",
                "MESHDNS_DISCOVERY_SHARED_TOKEN", TOKEN,
                "MESHDNS_DISCOVERY_VIP_FILE", "/tmp/vips.txt"));
        awaitHttp(discoveryHttp, "/q/health/ready", "discovery-service");
        MEASURED.put("discovery-service: container start to ready", seconds(t0));

        int dnsHttp = LoopbackPorts.pick();
        int dnsPort = LoopbackPorts.pick();
        t0 = System.nanoTime();
        start("dns-service", List.of(), Map.of(
                "QUARKUS_HTTP_PORT", String.valueOf(dnsHttp),
                "MESHDNS_DNS_PORT", String.valueOf(dnsPort),
                "MESHDNS_DNS_BIND_ADDRESS", "127.0.0.1",
                "MESHDNS_DNS_DISCOVERY_URL", "http://127.0.0.1:" + discoveryHttp,
                "MESHDNS_DNS_DISCOVERY_TOKEN", TOKEN,
                "MESHDNS_DNS_CLUSTER_NAME", "east",
                "MESHDNS_DNS_SNAPSHOT_FILE", "/tmp/snapshot.json"));
        awaitHttp(dnsHttp, "/q/health/ready", "dns-service");
        MEASURED.put("dns-service: container start to ready (following discovery)", seconds(t0));

        // web.shop is in both clusters (the local one, east, wins); reviews.shop only in west.
        assertA(dnsPort, "web.shop.svc.cluster.local.", "10.96.0.10", false);
        assertA(dnsPort, "reviews.shop.svc.cluster.local.", "10.97.0.20", false);
        assertA(dnsPort, "reviews.shop.svc.cluster.local.", "10.97.0.20", true);
    }

    @Test
    void exposureAndEdgeImagesStartUnderTheSameRestrictions() throws Exception {
        KubernetesMockServer kubernetes = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
        kubernetes.init(InetAddress.getLoopbackAddress(), 0);
        try {
            int exposureHttp = LoopbackPorts.pick();
            long t0 = System.nanoTime();
            start("exposure-service", List.of(), Map.ofEntries(
                    Map.entry("QUARKUS_HTTP_PORT", String.valueOf(exposureHttp)),
                    Map.entry("QUARKUS_KUBERNETES_CLIENT_API_SERVER_URL", kubernetes.url("/")),
                    Map.entry("QUARKUS_KUBERNETES_CLIENT_TRUST_CERTS", "true"),
                    Map.entry("MESHDNS_EXPOSURE_POLICY", "upsert-only"),
                    Map.entry("MESHDNS_EXPOSURE_OWNER_ID", "it"),
                    Map.entry("MESHDNS_EXPOSURE_PROVIDER", "builtin"),
                    Map.entry("MESHDNS_EXPOSURE_BUILTIN_TARGETS", "127.0.0.1:" + LoopbackPorts.pick()),
                    Map.entry("MESHDNS_EXPOSURE_RFC2136_ZONES", "mesh.test"),
                    Map.entry("MESHDNS_EXPOSURE_RFC2136_TSIG_KEY_NAME", "exposure"),
                    Map.entry("MESHDNS_EXPOSURE_RFC2136_TSIG_SECRET", "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0"),
                    Map.entry("MESHDNS_EXPOSURE_RFC2136_TSIG_ALGORITHM", "hmac-sha256"),
                    Map.entry("MESHDNS_EXPOSURE_DEFAULT_DOMAIN", "mesh.test"),
                    Map.entry("MESHDNS_EXPOSURE_LEADER_ELECTION_ENABLED", "false")));
            awaitHttp(exposureHttp, "/q/health/live", "exposure-service");
            MEASURED.put("exposure-service: container start to live", seconds(t0));
        } finally {
            kubernetes.destroy();
        }

        int edgeHttp = LoopbackPorts.pick();
        int edgeDns = LoopbackPorts.pick();
        long t0 = System.nanoTime();
        start("edge", List.of("-v", ROOT.resolve("examples/clusters").toAbsolutePath() + ":/etc/meshdns/clusters:ro"), Map.of(
                "QUARKUS_HTTP_PORT", String.valueOf(edgeHttp),
                "MESHDNS_DISCOVERY_MANIFEST_DIRS", "/etc/meshdns/clusters",
                "MESHDNS_DISCOVERY_SHARED_TOKEN", TOKEN,
                "MESHDNS_DISCOVERY_VIP_FILE", "/tmp/vips.txt",
                "MESHDNS_DNS_PORT", String.valueOf(edgeDns),
                "MESHDNS_DNS_BIND_ADDRESS", "127.0.0.1",
                "MESHDNS_DNS_CLUSTER_NAME", "east"));
        awaitHttp(edgeHttp, "/q/health/ready", "edge");
        MEASURED.put("edge: container start to ready", seconds(t0));
        assertA(edgeDns, "reviews.shop.svc.cluster.local.", "10.97.0.20", false);
    }

    /**
     * The DaemonSet's claim: uid 65534 with every capability dropped but NET_BIND_SERVICE, and no
     * privilege escalation, binds port 53; without the capability it cannot. In a network namespace
     * of the container's own (--network none), so no port of the host is touched.
     */
    @Test
    void port53NeedsNetBindServiceAndNothingElse() throws Exception {
        Map<String, String> env = Map.of("MESHDNS_DNS_PORT", "53", "MESHDNS_DNS_BIND_ADDRESS", "127.0.0.1",
                "MESHDNS_DNS_CLUSTER_NAME", "east", "MESHDNS_DNS_UPSTREAMS", "127.0.0.1:1");
        String with = start("dns-service", List.of("--network", "none", "--cap-add", "NET_BIND_SERVICE", "--security-opt", "no-new-privileges"), env);
        String without = start("dns-service", List.of("--network", "none"), env);
        awaitLog(with, "listening on 127.0.0.1 port 53");
        // Without the capability the bind fails and the process stops (its exit code, whatever it logs).
        String exit = run(Duration.ofMinutes(3), "podman", "wait", without).strip();
        assertTrue(!exit.equals("0"), "exit " + exit + "\n" + logs(without));
        assertTrue(!logs(without).contains("listening on 127.0.0.1 port 53"), logs(without));
    }

    /**
     * The node-local overlay's setup: the image carries ip, iptables and nft, and dns-service as uid
     * 65534 with NET_ADMIN + NET_BIND_SERVICE only puts its link-local address on an interface, installs
     * the NOTRACK rules (iptables and nftables), serves port 53 there, and removes it all on SIGTERM.
     * Each run in a network namespace of its own (--network none).
     */
    @Test
    void nodeLocalSetsUpAndRemovesItsInterfaceAndRulesWithBothRuleTools() throws Exception {
        List<String> caps = List.of("--network", "none", "--cap-add", "NET_ADMIN", "--cap-add", "NET_BIND_SERVICE",
                "--security-opt", "no-new-privileges");
        List<String> started = new ArrayList<>();
        for (String rules : List.of("iptables", "nftables")) {
            started.add(start("dns-service", caps, Map.of("MESHDNS_DNS_PORT", "53", "MESHDNS_DNS_CLUSTER_NAME", "east",
                    "MESHDNS_DNS_UPSTREAMS", "127.0.0.1:1", "MESHDNS_DNS_NODE_LOCAL_ENABLED", "true",
                    "MESHDNS_DNS_NODE_LOCAL_ADDRESS", "169.254.20.10", "MESHDNS_DNS_BIND_ADDRESS", "169.254.20.10",
                    "MESHDNS_DNS_NODE_LOCAL_RULES", rules)));
        }
        for (String c : started) {
            awaitLog(c, "listening on 169.254.20.10 port 53");
            assertTrue(logs(c).contains("NOTRACK") || logs(c).contains("nftables table"), logs(c));
        }
        for (String c : started) {
            run(Duration.ofMinutes(1), "podman", "stop", "-t", "30", c);
            assertTrue(logs(c).contains("removed meshdns0 and its rules"), logs(c));
        }
    }

    /** Starts a detached container the way the manifests run the image; returns its name. */
    private static String start(String image, List<String> extra, Map<String, String> env) throws Exception {
        String name = "meshdns-it-" + image + "-" + System.nanoTime();
        List<String> cmd = new ArrayList<>(List.of("podman", "run", "-d", "--name", name, "--runtime", "runc",
                "--read-only", "--cap-drop", "ALL", "--user", "65534:65534",
                "--ulimit", "nofile=4096:4096", "--ulimit", "nproc=512:512",
                "--tmpfs", "/tmp:rw,exec,nosuid,nodev,size=64m"));
        if (!extra.contains("--network")) cmd.addAll(List.of("--network", "host"));
        cmd.addAll(extra);
        // Loopback only: the manifests give the pod IP, a test on the host network must not listen beyond 127.0.0.1.
        cmd.addAll(List.of("-e", "QUARKUS_HTTP_HOST=127.0.0.1"));
        env.forEach((k, v) -> cmd.addAll(List.of("-e", k + "=" + v)));
        cmd.add("localhost/meshdns/" + image + ":" + TAG);
        CONTAINERS.add(name);
        run(Duration.ofMinutes(1), cmd.toArray(String[]::new));
        return name;
    }

    private static void awaitHttp(int port, String path, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        String last = "";
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> r = Http.get("http://127.0.0.1:" + port + path, null, Duration.ofSeconds(2));
                if (r.statusCode() == 200) return;
                last = r.statusCode() + " " + r.body();
            } catch (IOException e) {
                last = e.toString();
            }
            Thread.sleep(200);
        }
        throw new AssertionError(what + " not answering " + path + " on 127.0.0.1:" + port + " (" + last + ")\n" + logsOf(what));
    }

    private static void awaitLog(String container, String text) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (System.nanoTime() < deadline) {
            if (logs(container).contains(text)) return;
            Thread.sleep(500);
        }
        throw new AssertionError(container + " never logged '" + text + "':\n" + logs(container));
    }

    private static String logsOf(String image) throws Exception {
        StringBuilder out = new StringBuilder();
        for (String c : CONTAINERS) if (c.startsWith("meshdns-it-" + image + "-")) out.append(logs(c));
        return out.toString();
    }

    private static String logs(String container) throws Exception {
        return runQuietly("podman", "logs", container);
    }

    private static void assertA(int port, String name, String address, boolean tcp) throws Exception {
        SimpleResolver resolver = new SimpleResolver(InetAddress.getLoopbackAddress());
        resolver.setPort(port);
        resolver.setTCP(tcp);
        resolver.setTimeout(Duration.ofSeconds(3));
        Message response = resolver.send(Message.newQuery(Record.newRecord(Name.fromString(name), Type.A, DClass.IN)));
        assertEquals(Rcode.NOERROR, response.getRcode(), name + "\n" + response);
        List<String> answers = response.getSection(Section.ANSWER).stream().filter(ARecord.class::isInstance)
                .map(r -> ((ARecord) r).getAddress().getHostAddress()).toList();
        assertEquals(List.of(address), answers, name + (tcp ? " over TCP" : " over UDP"));
    }

    private static String seconds(long startNanos) {
        return String.format("%.1f s", (System.nanoTime() - startNanos) / 1e9);
    }

    private static String run(Duration timeout, String... command) throws Exception {
        return Commands.run(timeout, command);
    }

    private static String runQuietly(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(1, TimeUnit.MINUTES);
        return text;
    }
}
