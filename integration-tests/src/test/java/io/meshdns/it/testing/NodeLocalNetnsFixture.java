package io.meshdns.it.testing;

import io.meshdns.testsupport.QuarkusJarProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

import java.time.Duration;
import java.util.regex.Pattern;

import static io.meshdns.it.testing.NetworkNamespaces.must;
import static io.meshdns.it.testing.NetworkNamespaces.resolvConf;
import static io.meshdns.it.testing.NetworkNamespaces.run;
import static io.meshdns.it.testing.NetworkNamespaces.suffix;
import static io.meshdns.it.testing.NetworkNamespaces.veth;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The base of a node-local test in network namespaces: skipped unless it runs as root with {@code ip netns}; each
 * test gets its own {@link #netns}, deleted after it also when it failed halfway; {@link #nodeAndPod} builds the node
 * and the pod every such test starts from, and the pod's resolv.conf, the node's rules and dns-service's stop on
 * SIGTERM are read and awaited the same way in all of them.
 */
public abstract class NodeLocalNetnsFixture {
    /** The node's end of the veth to the pod: where the pod's routes to the node's addresses go. */
    protected static final String NODE_VETH_IP = "10.250.0.1";
    /** The node-pod link's network: a client dns-service must allow. */
    protected static final String POD_LINK_NETWORK = "10.250.0.0/30";

    /** This test's namespaces. */
    protected NetworkNamespaces netns;

    /**
     * A node and a pod namespace of one test and the veth pair between them ({@code nodeLink} in the node,
     * {@code podLink} in the pod).
     */
    protected record NodeAndPod(String node, String pod, String nodeLink, String podLink) {
    }

    @BeforeAll
    static void needsRootAndNetns() throws Exception {
        NetworkNamespaces.assumeAvailable();
    }

    @BeforeEach
    void newNamespaces() {
        netns = new NetworkNamespaces();
    }

    @AfterEach
    void deleteNamespaces() throws Exception {
        netns.close();
    }

    /**
     * Adds a node and a pod namespace (names start with "nodelocal", then {@link NetworkNamespaces#suffix} of
     * {@code tag}), joined by a veth pair: the node at {@value #NODE_VETH_IP}/30, the pod at 10.250.0.2/30.
     */
    protected NodeAndPod nodeAndPod(String tag) throws Exception {
        String suffix = suffix(tag);
        var n = new NodeAndPod("nodelocal-node-" + suffix, "nodelocal-pod-" + suffix, "nlv" + suffix, "nlp" + suffix);
        netns.add(n.node(), n.pod());
        veth(n.node(), n.pod(), n.nodeLink(), n.podLink(), NODE_VETH_IP + "/30", "10.250.0.2/30");
        return n;
    }

    /** The pod's resolv.conf naming {@code nameservers}, as kubelet's --cluster-dns would write it. */
    protected static void podResolvConf(String pod, String... nameservers) throws Exception {
        var conf = new StringBuilder();
        for (String ns : nameservers) conf.append("nameserver ").append(ns).append('\n');
        resolvConf(pod, conf.append("options timeout:2 attempts:2\n").toString());
    }

    /** A route in the pod to {@code address} (a /32) through the node. */
    protected static void podRouteToNode(String pod, String address) throws Exception {
        must("ip", "-n", pod, "route", "add", address + "/32", "via", NODE_VETH_IP);
    }

    /** iptables mode: both families' raw tables; nftables mode: our one inet table. */
    protected static String listRules(String node, String mode) throws Exception {
        return mode.equals("iptables")
                ? run("ip", "netns", "exec", node, "iptables", "-t", "raw", "-S").output()
                        + run("ip", "netns", "exec", node, "ip6tables", "-t", "raw", "-S").output()
                : run("ip", "netns", "exec", node, "nft", "list", "table", "inet", "meshdns").output();
    }

    /**
     * SIGTERM to dns-service (to the JVM's PID: ip netns exec execs java): it exits cleanly (0, or 143 when the signal
     * ends the JVM first) and says it removed its interface and rules.
     */
    protected static void terminateAndAwaitCleanUp(QuarkusJarProcess dns) throws InterruptedException {
        dns.terminate();
        int exit = dns.awaitExit(Duration.ofSeconds(30));
        assertTrue(exit == 0 || exit == 143, "exit on SIGTERM: " + exit);
        dns.awaitLine(Pattern.compile("node-local: removed meshdns0 and its rules"), Duration.ofSeconds(5));
    }
}
