package io.meshdns.it.dns;

import io.meshdns.it.testing.ForEachRulesTool;
import io.meshdns.it.testing.NodeLocalNetnsFixture;
import io.meshdns.testsupport.dns.UnboundServer;
import io.meshdns.it.testing.NetworkNamespaces.Result;
import io.meshdns.testsupport.QuarkusJarProcess;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static io.meshdns.it.testing.NetworkNamespaces.must;
import static io.meshdns.it.testing.NetworkNamespaces.nodeLocalDnsService;
import static io.meshdns.it.testing.NetworkNamespaces.run;
import static io.meshdns.it.testing.NetworkNamespaces.suffix;
import static io.meshdns.it.testing.NetworkNamespaces.veth;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The node-local wiring with several addresses, in network namespaces this test creates (all addresses exist only
 * inside them):
 * <ul>
 *   <li>dual-stack: 169.254.20.10 and fd00::a on the interface, NOTRACK for each in its family, a pod with
 *       both nameservers resolving over each, UDP and TCP; SIGTERM removes both families' rules;</li>
 *   <li>the kube-dns ClusterIP mode, NodeLocal DNSCache's: a "kube-proxy" DNAT in the node sends the ClusterIP
 *       10.96.0.10 and the upstream Service IP 10.96.0.11 to a "kube-dns" (Unbound in its own namespace, its
 *       answers tell it apart). The pod's resolv.conf keeps {@code nameserver 10.96.0.10}. With meshdns up
 *       (holding 169.254.20.10 and 10.96.0.10) the pod gets meshdns's answer (NOTRACK keeps the packet from
 *       the DNAT) and a name meshdns does not own comes from the stand-in through 10.96.0.11; after SIGKILL
 *       nothing answers (rules and address stay: no exit hook ran) until the restarted instance answers again;
 *       after SIGTERM the rules and addresses are gone and the same query is answered by the stand-in
 *       through the DNAT (fail-open).</li>
 * </ul>
 * Needs root.
 */
class NodeLocalClusterIpNetnsTest extends NodeLocalNetnsFixture {
    private static final String LINK_LOCAL = "169.254.20.10";
    private static final String LINK_LOCAL6 = "fd00::a";
    private static final String CLUSTER_IP = "10.96.0.10";
    private static final String UPSTREAM_IP = "10.96.0.11";
    private static final String KUBE_DNS = "10.251.0.2";
    private static final Pattern LISTENING = Pattern.compile("dns-service listening on .* port (53)");

    @ForEachRulesTool
    void aDualStackPodResolvesOverBothFamilies(String mode) throws Exception {
        NodeAndPod n = nodeAndPod("d" + mode.charAt(0));
        must("ip", "-n", n.node(), "addr", "add", "fd00:250::1/64", "dev", n.nodeLink(), "nodad");
        must("ip", "-n", n.pod(), "addr", "add", "fd00:250::2/64", "dev", n.podLink(), "nodad");
        podRouteToNode(n.pod(), LINK_LOCAL);
        must("ip", "-n", n.pod(), "-6", "route", "add", LINK_LOCAL6 + "/128", "via", "fd00:250::1");
        podResolvConf(n.pod(), LINK_LOCAL, LINK_LOCAL6);
        try (QuarkusJarProcess dns = dnsService(n.node(), mode, LINK_LOCAL + "," + LINK_LOCAL6, "127.0.0.1:9",
                POD_LINK_NETWORK + ",fd00:250::/64,127.0.0.0/8").start()) {
            dns.awaitLine(LISTENING, Duration.ofSeconds(60));
            for (String server : List.of(LINK_LOCAL, LINK_LOCAL6)) {
                Result udp = run("ip", "netns", "exec", n.pod(), "dig", "+short", "+time=2", "+tries=1", "@" + server,
                        "registry.mesh.example", "A");
                assertEquals("192.0.2.10", udp.output().trim(), "UDP via " + server + "\n" + dns.output());
                Result tcp = run("ip", "netns", "exec", n.pod(), "dig", "+short", "+tcp", "+time=2", "+tries=1", "@" + server,
                        "registry.mesh.example", "AAAA");
                assertEquals("2001:db8::10", tcp.output().trim(), "TCP via " + server);
            }
            String rules = listRules(n.node(), mode);
            for (String rule : expectedRules(mode, LINK_LOCAL, LINK_LOCAL6)) {
                assertTrue(rules.contains(rule), "missing '" + rule + "' in\n" + rules);
            }
            String addresses = run("ip", "-n", n.node(), "-o", "addr", "show", "dev", "meshdns0").output();
            assertTrue(addresses.contains(LINK_LOCAL + "/32") && addresses.contains(LINK_LOCAL6 + "/128"), addresses);

            terminateAndAwaitCleanUp(dns);
        }
        String after = listRules(n.node(), mode);
        assertFalse(after.contains(LINK_LOCAL) || after.contains(LINK_LOCAL6), "rules left after SIGTERM:\n" + after);
    }

    @ForEachRulesTool
    void theKubeDnsClusterIpIsServedWhileUpAndFallsBackToKubeDnsOnExit(String mode) throws Exception {
        String tag = "c" + mode.charAt(0);
        String kubeDns = "nodelocal-kd-" + suffix(tag);
        Path dir = Files.createTempDirectory("nodelocal-kube-dns");
        Process unbound = null;
        try {
            NodeAndPod n = clusterNetwork(tag, kubeDns);
            String node = n.node();
            String pod = n.pod();
            unbound = kubeDnsStandIn(kubeDns, dir);
            // Before meshdns: kube-proxy's DNAT alone, the pod reaches kube-dns.
            assertEquals("203.0.113.99", podAsks(pod, "registry.mesh.example"), "kube-dns through kube-proxy before meshdns");

            String addresses = LINK_LOCAL + "," + CLUSTER_IP;
            try (QuarkusJarProcess dns = dnsService(node, mode, addresses, UPSTREAM_IP + ":53", POD_LINK_NETWORK + ",127.0.0.0/8").start()) {
                dns.awaitLine(LISTENING, Duration.ofSeconds(60));
                assertEquals("192.0.2.10", podAsks(pod, "registry.mesh.example"), "meshdns through the ClusterIP\n" + dns.output());
                assertEquals("198.51.100.7", podAsks(pod, "outside.example"),
                        "a name meshdns does not own: forwarded to kube-dns through " + UPSTREAM_IP + "\n" + dns.output());
                Result tcp = run("ip", "netns", "exec", pod, "dig", "+short", "+tcp", "+time=2", "+tries=1", "@" + CLUSTER_IP,
                        "registry.mesh.example", "A");
                assertEquals("192.0.2.10", tcp.output().trim(), "TCP through the ClusterIP");

                // SIGKILL: no exit hook runs, the address and NOTRACK stay; queries to the ClusterIP reach a closed port.
                dns.kill();
            }
            assertTrue(listRules(node, mode).contains(CLUSTER_IP), "rules stay after SIGKILL");
            Result dead = run("ip", "netns", "exec", pod, "dig", "+short", "+time=1", "+tries=1", "@" + CLUSTER_IP,
                    "registry.mesh.example", "A");
            assertNotEquals(0, dead.exitCode(), "no answer while killed: " + dead.output());
            assertFalse(dead.output().contains("203.0.113.99"), "kube-dns is not reached while the rules stay: " + dead.output());

            // The DaemonSet restarts the pod: the new instance finds everything in place and serves again; then SIGTERM.
            try (QuarkusJarProcess dns = dnsService(node, mode, addresses, UPSTREAM_IP + ":53", POD_LINK_NETWORK + ",127.0.0.0/8").start()) {
                dns.awaitLine(LISTENING, Duration.ofSeconds(60));
                assertEquals("192.0.2.10", podAsks(pod, "registry.mesh.example"), "the restarted instance\n" + dns.output());
                terminateAndAwaitCleanUp(dns);
            }
            assertFalse(listRules(node, mode).contains(CLUSTER_IP), "rules removed on SIGTERM");
            assertEquals("203.0.113.99", podAsks(pod, "registry.mesh.example"), "fail-open: kube-dns through kube-proxy again");
        } finally {
            if (unbound != null) {
                unbound.destroy();
                if (!unbound.waitFor(10, TimeUnit.SECONDS)) unbound.destroyForcibly();
            }
        }
    }

    /** Forwarding to the ClusterIP meshdns holds would loop: refused at start naming the key, nothing set up. */
    @Test
    void anUpstreamAtAHeldAddressIsRefusedAtStart() throws Exception {
        String node = "nodelocal-node-" + suffix("r");
        netns.add(node);
        try (QuarkusJarProcess dns = dnsService(node, "iptables", LINK_LOCAL + "," + CLUSTER_IP, CLUSTER_IP + ":53",
                "127.0.0.0/8").start()) {
            assertEquals(2, dns.awaitExit(Duration.ofSeconds(60)), dns.output());
            assertTrue(dns.output().contains("meshdns: invalid configuration: meshdns.dns.upstreams"), dns.output());
            assertTrue(dns.output().contains("kube-dns-upstream"), dns.output());
        }
        assertNotEquals(0, run("ip", "-n", node, "link", "show", "dev", "meshdns0").exitCode(), "nothing was set up");
    }

    private static String podAsks(String pod, String name) throws Exception {
        // The pod's resolver as kubelet writes it: nameserver <kube-dns ClusterIP>.
        return run("ip", "netns", "exec", pod, "dig", "+short", "+time=2", "+tries=2", name, "A").output().trim();
    }

    private static QuarkusJarProcess.Launch dnsService(String node, String mode, String addresses, String upstreams,
                                                       String clients) {
        return nodeLocalDnsService(node, mode, upstreams, clients).property("meshdns.dns.node-local.addresses", addresses);
    }

    /**
     * pod --veth-- node --veth-- kube-dns. The node forwards, and holds kube-proxy's DNAT (nat PREROUTING for
     * pods, nat OUTPUT for the node's own traffic, meshdns's forwarding) of both Service IPs to kube-dns.
     */
    private NodeAndPod clusterNetwork(String tag, String kubeDns) throws Exception {
        NodeAndPod n = nodeAndPod(tag);
        String node = n.node();
        String suffix = suffix(tag);
        netns.add(kubeDns);
        veth(node, kubeDns, "nlk" + suffix, "nld" + suffix, "10.251.0.1/30", KUBE_DNS + "/30");
        must("ip", "-n", n.pod(), "route", "add", "default", "via", NODE_VETH_IP);
        must("ip", "-n", kubeDns, "route", "add", "default", "via", "10.251.0.1");
        // A route for the Service range, as a node has (kube-proxy's DNAT rewrites the destination before it matters).
        must("ip", "-n", node, "route", "add", "10.96.0.0/16", "via", KUBE_DNS);
        must("ip", "netns", "exec", node, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1");
        for (String ip : List.of(CLUSTER_IP, UPSTREAM_IP)) {
            for (String chain : List.of("PREROUTING", "OUTPUT")) {
                for (String proto : List.of("udp", "tcp")) {
                    must("ip", "netns", "exec", node, "iptables", "-w", "5", "-t", "nat", "-A", chain, "-d", ip + "/32", "-p", proto,
                            "-m", proto, "--dport", "53", "-j", "DNAT", "--to-destination", KUBE_DNS + ":53");
                }
            }
        }
        podResolvConf(n.pod(), CLUSTER_IP);
        return n;
    }

    /** Unbound as kube-dns: its own answer for the mesh name (so the test sees who answered) and a name of its own. */
    private static Process kubeDnsStandIn(String kubeDns, Path dir) throws Exception {
        Path conf = dir.resolve("unbound.conf");
        Files.writeString(conf, """
                server:
                  interface: %1$s
                  port: 53
                %2$s
                  access-control: 0.0.0.0/0 allow
                  module-config: "iterator"
                  local-zone: "mesh.example." static
                  local-data: "registry.mesh.example. 30 IN A 203.0.113.99"
                  local-zone: "outside.example." static
                  local-data: "outside.example. 30 IN A 198.51.100.7"
                """.formatted(KUBE_DNS, UnboundServer.foregroundOptions(dir)));
        Process unbound = new ProcessBuilder("ip", "netns", "exec", kubeDns, "unbound", "-d", "-c", conf.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("unbound.log").toFile()).start();
        Awaitility.await("kube-dns stand-in answering").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    if (!unbound.isAlive()) throw new IllegalStateException("unbound exited: " + Files.readString(dir.resolve("unbound.log")));
                    return run("ip", "netns", "exec", kubeDns, "dig", "+short", "+time=1", "+tries=1", "@" + KUBE_DNS,
                            "outside.example", "A").output().trim().equals("198.51.100.7");
                });
        return unbound;
    }

    private static List<String> expectedRules(String mode, String v4, String v6) {
        if (mode.equals("iptables")) {
            return List.of("-A PREROUTING -d " + v4 + "/32 -p udp -m udp --dport 53 -j NOTRACK",
                    "-A OUTPUT -s " + v4 + "/32 -p tcp -m tcp --sport 53 -j NOTRACK",
                    "-A PREROUTING -d " + v6 + "/128 -p udp -m udp --dport 53 -j NOTRACK",
                    "-A OUTPUT -s " + v6 + "/128 -p tcp -m tcp --sport 53 -j NOTRACK");
        }
        return List.of("ip daddr " + v4 + " udp dport 53 notrack", "ip saddr " + v4 + " tcp sport 53 notrack",
                "ip6 daddr " + v6 + " udp dport 53 notrack", "ip6 saddr " + v6 + " tcp sport 53 notrack");
    }
}
