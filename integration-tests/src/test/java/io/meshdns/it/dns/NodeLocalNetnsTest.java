package io.meshdns.it.dns;

import io.meshdns.it.testing.ForEachRulesTool;
import io.meshdns.it.testing.NetworkNamespaces;
import io.meshdns.it.testing.NetworkNamespaces.Result;
import io.meshdns.testsupport.QuarkusJarProcess;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;

import java.time.Duration;
import java.util.regex.Pattern;

import static io.meshdns.it.testing.NetworkNamespaces.must;
import static io.meshdns.it.testing.NetworkNamespaces.nodeLocalDnsService;
import static io.meshdns.it.testing.NetworkNamespaces.resolvConf;
import static io.meshdns.it.testing.NetworkNamespaces.run;
import static io.meshdns.it.testing.NetworkNamespaces.suffix;
import static io.meshdns.it.testing.NetworkNamespaces.veth;
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
class NodeLocalNetnsTest {
    private static final String ADDRESS = "169.254.20.10";
    private static final Pattern LISTENING = Pattern.compile("dns-service listening on 169\\.254\\.20\\.10 port (53)");

    @BeforeAll
    static void needsRootAndNetns() throws Exception {
        NetworkNamespaces.assumeAvailable();
    }

    @ForEachRulesTool
    void aPodResolvesThroughTheNodeLocalAddressAndTheRulesComeAndGo(String mode) throws Exception {
        String suffix = suffix(String.valueOf(mode.charAt(0)));
        String node = "mdns-node-" + suffix;
        String pod = "mdns-pod-" + suffix;
        try (NetworkNamespaces netns = new NetworkNamespaces()) {
            namespaces(netns, node, pod, suffix);
            try (QuarkusJarProcess dns = dnsService(node, mode).start()) {
                dns.awaitLine(LISTENING, Duration.ofSeconds(60));

                Result udp = run("ip", "netns", "exec", pod, "dig", "+short", "+time=2", "registry.mesh.example", "A");
                assertEquals("192.0.2.10", udp.output().trim(), "pod resolver over UDP\n" + dns.output());
                Result tcp = run("ip", "netns", "exec", pod, "dig", "+short", "+tcp", "+time=2", "registry.mesh.example", "AAAA");
                assertEquals("2001:db8::10", tcp.output().trim(), "pod resolver over TCP");
                Result libc = run("ip", "netns", "exec", pod, "getent", "ahostsv4", "www.mesh.example");
                assertTrue(libc.output().contains("192.0.2.10"), "glibc's resolver in the pod: " + libc.output());

                assertTrue(rulesPresent(node, mode), "rules after start:\n" + listRules(node, mode));
                assertEquals(0, run("ip", "-n", node, "-o", "addr", "show", "dev", "meshdns0").exitCode());

                // Someone flushes our rules (a firewall reload): the next check puts them back.
                if (mode.equals("iptables")) {
                    must("ip", "netns", "exec", node, "iptables", "-t", "raw", "-D", "PREROUTING", "-d", ADDRESS + "/32",
                            "-p", "udp", "-m", "udp", "--dport", "53", "-j", "NOTRACK");
                } else {
                    must("ip", "netns", "exec", node, "nft", "flush", "chain", "inet", "meshdns", "prerouting");
                }
                // (Not asserted absent in between: the 1 s check may already have put it back.)
                assertFalse(dns.output().contains("put back what had gone missing"), "nothing was missing before");
                Awaitility.await("rules put back").atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200))
                        .until(() -> rulesPresent(node, mode));
                dns.awaitLine(Pattern.compile("put back what had gone missing"), Duration.ofSeconds(5));

                dns.terminate(); // SIGTERM to the JVM's PID (ip netns exec execs java)
                int exit = dns.awaitExit(Duration.ofSeconds(30));
                assertTrue(exit == 0 || exit == 143, "exit on SIGTERM: " + exit);
                dns.awaitLine(Pattern.compile("node-local: removed meshdns0 and its rules"), Duration.ofSeconds(5));
            }
            String after = listRules(node, mode);
            assertFalse(after.contains(ADDRESS), "rules left after SIGTERM:\n" + after);
            assertTrue(run("ip", "-n", node, "link", "show", "dev", "meshdns0").exitCode() != 0, "meshdns0 left after SIGTERM");
        }
    }

    /**
     * A DaemonSet upgrade with maxSurge 1 on a node-local node: the new pod binds beside the old one
     * (reuse-port); the old one, stopped, must leave the interface and rules to the new one (the pod keeps
     * resolving); the last one to stop removes them.
     */
    @org.junit.jupiter.api.Test
    void anUpgradedInstanceKeepsTheAddressWhenTheOldOneStops() throws Exception {
        String suffix = suffix("u");
        String node = "mdns-node-" + suffix;
        String pod = "mdns-pod-" + suffix;
        try (NetworkNamespaces netns = new NetworkNamespaces()) {
            namespaces(netns, node, pod, suffix);
            // The surge pod starts while the old one serves, as a DaemonSet rollout does: the new instance finds the
            // interface and rules in place. (Two instances racing to create the interface at the same moment is not
            // what a rollout does.)
            try (QuarkusJarProcess old = dnsService(node, "iptables").property("meshdns.dns.reuse-port", "true").start()) {
                old.awaitLine(LISTENING, Duration.ofSeconds(60));
                QuarkusJarProcess next = dnsService(node, "iptables").property("meshdns.dns.reuse-port", "true").start();
                try (next) {
                next.awaitLine(LISTENING, Duration.ofSeconds(60));
                old.terminate();
                old.awaitExit(Duration.ofSeconds(30));
                old.awaitLine(Pattern.compile("another instance serves 169\\.254\\.20\\.10 port 53: keeping meshdns0"), Duration.ofSeconds(5));
                assertTrue(rulesPresent(node, "iptables"), "rules kept for the new instance:\n" + listRules(node, "iptables"));
                Result udp = run("ip", "netns", "exec", pod, "dig", "+short", "+time=2", "registry.mesh.example", "A");
                assertEquals("192.0.2.10", udp.output().trim(), "the pod still resolves, through the new instance");
                next.terminate();
                next.awaitExit(Duration.ofSeconds(30));
                next.awaitLine(Pattern.compile("node-local: removed meshdns0 and its rules"), Duration.ofSeconds(5));
                }
            }
            assertFalse(listRules(node, "iptables").contains(ADDRESS));
        }
    }

    private static QuarkusJarProcess.Launch dnsService(String node, String mode) {
        return nodeLocalDnsService(node, mode, "127.0.0.1:9", "10.250.0.0/30,127.0.0.0/8");
    }

    /** The two namespaces, the veth between them, the pod's route and resolv.conf. */
    private static void namespaces(NetworkNamespaces netns, String node, String pod, String suffix) throws Exception {
        netns.add(node, pod);
        veth(node, pod, "mdv" + suffix, "mdp" + suffix, "10.250.0.1/30", "10.250.0.2/30");
        must("ip", "-n", pod, "route", "add", ADDRESS + "/32", "via", "10.250.0.1");
        resolvConf(pod, "nameserver " + ADDRESS + "\noptions timeout:2 attempts:2\n");
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

    private static String listRules(String node, String mode) throws Exception {
        return mode.equals("iptables")
                ? run("ip", "netns", "exec", node, "iptables", "-t", "raw", "-S").output()
                : run("ip", "netns", "exec", node, "nft", "list", "table", "inet", "meshdns").output();
    }
}
