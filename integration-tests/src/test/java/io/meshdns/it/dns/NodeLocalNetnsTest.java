package io.meshdns.it.dns;

import io.meshdns.it.testing.ForEachRulesTool;
import io.meshdns.it.testing.NodeLocalNetnsFixture;
import io.meshdns.it.testing.NetworkNamespaces.Result;
import io.meshdns.testsupport.QuarkusJarProcess;
import org.awaitility.Awaitility;

import java.time.Duration;
import java.util.regex.Pattern;

import static io.meshdns.it.testing.NetworkNamespaces.must;
import static io.meshdns.it.testing.NetworkNamespaces.nodeLocalDnsService;
import static io.meshdns.it.testing.NetworkNamespaces.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pods pointed at the node's DNS, for real, in two network namespaces this test creates: "node" runs the
 * packaged dns-service with node-local wiring on (its interface, 169.254.20.10, NOTRACK rules, listeners on
 * port 53 there); "pod" is joined to it by a veth pair (10.250.0.0/30, only inside these namespaces) and
 * its resolv.conf names 169.254.20.10, as kubelet's --cluster-dns would write it. The pod's resolver gets
 * the zone file's answers over UDP and TCP; the rules are there after start (iptables and nftables modes),
 * a flushed rule comes back at the next check, and SIGTERM removes interface and rules. Needs root.
 */
class NodeLocalNetnsTest extends NodeLocalNetnsFixture {
    private static final String ADDRESS = "169.254.20.10";
    private static final Pattern LISTENING = Pattern.compile("dns-service listening on 169\\.254\\.20\\.10 port (53)");

    @ForEachRulesTool
    void aPodResolvesThroughTheNodeLocalAddressAndTheRulesComeAndGo(String mode) throws Exception {
        NodeAndPod n = podAskingTheNodeLocalAddress(String.valueOf(mode.charAt(0)));
        try (QuarkusJarProcess dns = dnsService(n.node(), mode).start()) {
            dns.awaitLine(LISTENING, Duration.ofSeconds(60));

            Result udp = run("ip", "netns", "exec", n.pod(), "dig", "+short", "+time=2", "registry.mesh.example", "A");
            assertEquals("192.0.2.10", udp.output().trim(), "pod resolver over UDP\n" + dns.output());
            Result tcp = run("ip", "netns", "exec", n.pod(), "dig", "+short", "+tcp", "+time=2", "registry.mesh.example", "AAAA");
            assertEquals("2001:db8::10", tcp.output().trim(), "pod resolver over TCP");
            Result libc = run("ip", "netns", "exec", n.pod(), "getent", "ahostsv4", "www.mesh.example");
            assertTrue(libc.output().contains("192.0.2.10"), "glibc's resolver in the pod: " + libc.output());

            assertTrue(rulesPresent(n.node(), mode), "rules after start:\n" + listRules(n.node(), mode));
            assertEquals(0, run("ip", "-n", n.node(), "-o", "addr", "show", "dev", "meshdns0").exitCode());

            // Someone flushes our rules (a firewall reload): the next check puts them back.
            if (mode.equals("iptables")) {
                must("ip", "netns", "exec", n.node(), "iptables", "-t", "raw", "-D", "PREROUTING", "-d", ADDRESS + "/32",
                        "-p", "udp", "-m", "udp", "--dport", "53", "-j", "NOTRACK");
            } else {
                must("ip", "netns", "exec", n.node(), "nft", "flush", "chain", "inet", "meshdns", "prerouting");
            }
            // (Not asserted absent in between: the 1 s check may already have put it back.)
            assertFalse(dns.output().contains("put back what had gone missing"), "nothing was missing before");
            Awaitility.await("rules put back").atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200))
                    .until(() -> rulesPresent(n.node(), mode));
            dns.awaitLine(Pattern.compile("put back what had gone missing"), Duration.ofSeconds(5));

            terminateAndAwaitCleanUp(dns);
        }
        String after = listRules(n.node(), mode);
        assertFalse(after.contains(ADDRESS), "rules left after SIGTERM:\n" + after);
        assertTrue(run("ip", "-n", n.node(), "link", "show", "dev", "meshdns0").exitCode() != 0, "meshdns0 left after SIGTERM");
    }

    /**
     * A DaemonSet upgrade with maxSurge 1 on a node-local node: the new pod binds beside the old one
     * (reuse-port); the old one, stopped, must leave the interface and rules to the new one (the pod keeps
     * resolving); the last one to stop removes them.
     */
    @org.junit.jupiter.api.Test
    void anUpgradedInstanceKeepsTheAddressWhenTheOldOneStops() throws Exception {
        NodeAndPod n = podAskingTheNodeLocalAddress("u");
        // The surge pod starts while the old one serves, as a DaemonSet rollout does: the new instance finds the
        // interface and rules in place. (Two instances racing to create the interface at the same moment is not
        // what a rollout does.)
        try (QuarkusJarProcess old = dnsService(n.node(), "iptables").property("meshdns.dns.reuse-port", "true").start()) {
            old.awaitLine(LISTENING, Duration.ofSeconds(60));
            QuarkusJarProcess next = dnsService(n.node(), "iptables").property("meshdns.dns.reuse-port", "true").start();
            try (next) {
            next.awaitLine(LISTENING, Duration.ofSeconds(60));
            old.terminate();
            old.awaitExit(Duration.ofSeconds(30));
            old.awaitLine(Pattern.compile("another instance serves 169\\.254\\.20\\.10 port 53: keeping meshdns0"), Duration.ofSeconds(5));
            assertTrue(rulesPresent(n.node(), "iptables"), "rules kept for the new instance:\n" + listRules(n.node(), "iptables"));
            Result udp = run("ip", "netns", "exec", n.pod(), "dig", "+short", "+time=2", "registry.mesh.example", "A");
            assertEquals("192.0.2.10", udp.output().trim(), "the pod still resolves, through the new instance");
            terminateAndAwaitCleanUp(next);
            }
        }
        assertFalse(listRules(n.node(), "iptables").contains(ADDRESS));
    }

    private static QuarkusJarProcess.Launch dnsService(String node, String mode) {
        return nodeLocalDnsService(node, mode, "127.0.0.1:9", POD_LINK_NETWORK + ",127.0.0.0/8");
    }

    /** The node and the pod, the pod's route to the node-local address and its resolv.conf naming it. */
    private NodeAndPod podAskingTheNodeLocalAddress(String tag) throws Exception {
        NodeAndPod n = nodeAndPod(tag);
        podRouteToNode(n.pod(), ADDRESS);
        podResolvConf(n.pod(), ADDRESS);
        return n;
    }

    private static boolean rulesPresent(String node, String mode) throws Exception {
        String rules = listRules(node, mode);
        if (mode.equals("iptables")) {
            return rules.contains("-A PREROUTING -d " + ADDRESS + "/32 -p udp -m udp --dport 53 -j NOTRACK")
                    && rules.contains("-A PREROUTING -d " + ADDRESS + "/32 -p tcp -m tcp --dport 53 -j NOTRACK")
                    && rules.contains("-A OUTPUT -s " + ADDRESS + "/32 -p udp -m udp --sport 53 -j NOTRACK")
                    && rules.contains("-A OUTPUT -s " + ADDRESS + "/32 -p tcp -m tcp --sport 53 -j NOTRACK");
        }
        int pre = rules.indexOf("chain prerouting {");
        int out = rules.indexOf("chain output {");
        if (pre < 0 || out < pre) return false;
        String prerouting = rules.substring(pre, out);
        String output = rules.substring(out);
        return prerouting.contains("ip daddr " + ADDRESS + " udp dport 53 notrack")
                && prerouting.contains("ip daddr " + ADDRESS + " tcp dport 53 notrack")
                && output.contains("ip saddr " + ADDRESS + " udp sport 53 notrack")
                && output.contains("ip saddr " + ADDRESS + " tcp sport 53 notrack");
    }
}
