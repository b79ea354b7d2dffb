package io.meshdns.dns.nodelocal;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;

import java.util.List;
import java.util.Optional;

/**
 * Pods pointed at the node's DNS, as NodeLocal DNSCache does it: a dummy interface holding a link-local
 * address, NOTRACK rules for DNS to that address, and the listeners bound there. Validated into
 * {@link NodeLocalSettings} at start.
 */
@ConfigMapping(prefix = "meshdns.dns.node-local")
public interface NodeLocalConfig {
    String ENABLED = "meshdns.dns.node-local.enabled";
    String ADDRESS = "meshdns.dns.node-local.address";
    String ADDRESSES = "meshdns.dns.node-local.addresses";
    String INTERFACE = "meshdns.dns.node-local.interface";
    String RULES = "meshdns.dns.node-local.rules";
    String KEEP_ON_EXIT = "meshdns.dns.node-local.keep-on-exit";
    String CHECK_INTERVAL = "meshdns.dns.node-local.check-interval";

    /** Set up the interface and rules at start (needs CAP_NET_ADMIN and the host network namespace). */
    @WithDefault("false")
    String enabled();

    /**
     * The one address pods use as their nameserver (kubelet --cluster-dns); the listeners bind it. Kept for
     * configurations written before {@link #addresses()}; 169.254.20.10 when neither is set.
     */
    Optional<String> address();

    /**
     * Every address pods may use as their nameserver, IPv4 and IPv6 mixed (a dual-stack node's link-local
     * pair, the kube-dns ClusterIP): all on the interface, all given NOTRACK, all bound by the listeners.
     */
    Optional<List<String>> addresses();

    /** The dummy interface that holds the address. */
    @WithName("interface")
    @WithDefault("meshdns0")
    String interfaceName();

    /** iptables | nftables | none: which tool installs the NOTRACK rules (none: the interface only). */
    @WithDefault("iptables")
    String rules();

    /** Leave the interface and rules in place when the process exits. */
    @WithDefault("false")
    String keepOnExit();

    /** How often the interface and rules are checked; whatever is missing is put back. */
    @WithDefault("60s")
    String checkInterval();
}
