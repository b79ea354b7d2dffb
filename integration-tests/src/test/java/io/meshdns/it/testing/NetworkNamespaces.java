package io.meshdns.it.testing;

import io.meshdns.testsupport.QuarkusJarProcess;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Network namespaces a node-local test builds for itself (the node, its pods, a kube-dns stand-in), joined by
 * veth pairs created inside them, so no address or link ever exists in the machine's own namespace.
 * {@link #close()} deletes every namespace it was asked to add (newest first) and the resolv.conf written for it,
 * also when the test failed halfway. Needs root and {@code ip netns}: {@link #assumeAvailable()}.
 */
public final class NetworkNamespaces implements AutoCloseable {
    private final List<String> names = new ArrayList<>();

    /** Skips the test unless it runs as root on a machine with {@code ip netns}. */
    public static void assumeAvailable() throws Exception {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "network namespaces need root");
        Assumptions.assumeTrue(run("ip", "netns", "list").exitCode() == 0, "ip netns is not available");
    }

    /**
     * A short suffix unique to this test JVM and {@code tag}, for namespace and link names: parallel builds on one
     * machine (each its own JVM) never collide, and a link name stays within the kernel's 15 characters.
     */
    public static String suffix(String tag) {
        return Long.toString(ProcessHandle.current().pid() % 100000, 36) + tag;
    }

    /** Adds the namespaces (deleted again at {@link #close()} even if adding one fails). */
    public NetworkNamespaces add(String... namespaces) throws Exception {
        for (String ns : namespaces) {
            names.add(ns);
            must("ip", "netns", "add", ns);
        }
        return this;
    }

    /** A veth pair between namespaces {@code a} and {@code b}, each end addressed, both ends and both loopbacks up. */
    public static void veth(String a, String b, String aName, String bName, String aAddr, String bAddr) throws Exception {
        // Created inside the namespaces: the veth never exists in the machine's own network namespace.
        must("ip", "-n", a, "link", "add", aName, "type", "veth", "peer", "name", bName, "netns", b);
        must("ip", "-n", a, "addr", "add", aAddr, "dev", aName);
        must("ip", "-n", b, "addr", "add", bAddr, "dev", bName);
        for (String[] up : new String[][] {{a, "lo"}, {b, "lo"}, {a, aName}, {b, bName}}) {
            must("ip", "-n", up[0], "link", "set", "dev", up[1], "up");
        }
    }

    /** ip netns exec bind-mounts /etc/netns/&lt;name&gt;/resolv.conf over /etc/resolv.conf: the pod's resolver. */
    public static void resolvConf(String pod, String content) throws IOException {
        Path podEtc = Path.of("/etc/netns", pod);
        Files.createDirectories(podEtc);
        Files.writeString(podEtc.resolve("resolv.conf"), content);
    }

    /**
     * The packaged dns-service run inside {@code node} with node-local wiring on ({@code mode}: iptables or
     * nftables, checked every second), on port 53, answering the example zone, forwarding to {@code upstreams},
     * serving {@code clients}; no drain, so a stop is quick.
     */
    public static QuarkusJarProcess.Launch nodeLocalDnsService(String node, String mode, String upstreams, String clients) {
        return QuarkusJarProcess.module("dns-service").commandPrefix("ip", "netns", "exec", node)
                .jvmOptions(QuarkusJarProcess.FAST_START_JVM)
                .properties("quarkus.http.host=127.0.0.1", "quarkus.http.port=0", "meshdns.dns.port=53",
                        "meshdns.dns.zone-files=examples/zones/mesh.example.zone", "meshdns.dns.upstreams=" + upstreams,
                        "meshdns.dns.allowed-clients=" + clients, "meshdns.dns.drain=0s",
                        "meshdns.dns.node-local.enabled=true", "meshdns.dns.node-local.rules=" + mode,
                        "meshdns.dns.node-local.check-interval=1s");
    }

    /** What a command printed (stdout and stderr) and its exit code; -1 when it ran over 30 s. */
    public record Result(int exitCode, String output) {
    }

    /** Runs the command and fails the test, with what it printed, unless it exits 0. */
    public static void must(String... argv) throws Exception {
        Result r = run(argv);
        assertEquals(0, r.exitCode(), String.join(" ", argv) + ": " + r.output());
    }

    public static Result run(String... argv) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(new ArrayList<>(List.of(argv))).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return new Result(-1, out);
        }
        return new Result(p.exitValue(), out);
    }

    @Override
    public void close() throws Exception {
        for (int i = names.size() - 1; i >= 0; i--) {
            String ns = names.get(i);
            run("ip", "netns", "del", ns);
            Path etc = Path.of("/etc/netns", ns);
            Files.deleteIfExists(etc.resolve("resolv.conf"));
            Files.deleteIfExists(etc);
        }
    }
}
