package io.meshdns.dns.nodelocal;

import java.util.ArrayList;
import java.util.List;

/**
 * The interface and the rules for the node-local addresses (any mix of IPv4 and IPv6), as data: which commands check, add and remove
 * them. Pure, so every command line is unit-tested; {@link NodeLocalNetwork} runs them.
 *
 * <p>The rules are the ones NodeLocal DNSCache installs, for UDP and TCP to the DNS port: NOTRACK in the
 * raw table for queries arriving (PREROUTING), queries from the node itself and our answers (OUTPUT), so
 * DNS to the node never takes a conntrack entry (no table exhaustion, no conntrack races on UDP); and in
 * iptables mode ACCEPT in filter INPUT/OUTPUT, ahead of a node firewall's rules. The nftables mode keeps
 * everything in a table of its own ({@code inet meshdns}), replaced in one transaction; an nftables
 * accept cannot overrule another table's drop, so it has no filter rules.
 */
public final class RuleSet {
    /** The nftables table this mode owns: created, checked and deleted whole. */
    public static final String NFT_TABLE = "meshdns";

    private final NodeLocalSettings settings;
    private final int port;

    public RuleSet(NodeLocalSettings settings, int port) {
        this.settings = settings;
        this.port = port;
    }

    public NodeLocalSettings settings() {
        return settings;
    }

    /** One iptables rule: its family (ip6tables for IPv6), table, chain and match/target arguments. */
    public record IptablesRule(boolean ipv6, String table, String chain, List<String> spec) {
        public IptablesRule {
            spec = List.copyOf(spec);
        }
    }

    // ---- the interface ----

    public Command showLink() {
        return Command.of("ip", "-o", "link", "show", "dev", settings.interfaceName());
    }

    /** A dummy interface: a place for a local address that carries no traffic of its own. */
    public Command addLink() {
        return addLink("dummy");
    }

    /**
     * {@code kind} "bridge" (with no ports) is the stand-in where the kernel has no dummy driver
     * (CONFIG_DUMMY unset, as in some minimal VM kernels): it holds a local address the same way.
     */
    public Command addLink(String kind) {
        return Command.of("ip", "link", "add", settings.interfaceName(), "type", kind);
    }

    public Command linkUp() {
        return Command.of("ip", "link", "set", "dev", settings.interfaceName(), "up");
    }

    public Command showAddresses() {
        return Command.of("ip", "-o", "addr", "show", "dev", settings.interfaceName());
    }

    /**
     * An IPv6 address is added {@code nodad}: duplicate address detection would hold it "tentative" for a
     * second or two, and binding a tentative address fails (EADDRNOTAVAIL); the address is ours by design.
     */
    public Command addAddress(NodeLocalSettings.NodeAddress address) {
        return address.ipv6()
                ? Command.of("ip", "addr", "add", address.hostPrefix(), "dev", settings.interfaceName(), "nodad")
                : Command.of("ip", "addr", "add", address.hostPrefix(), "dev", settings.interfaceName());
    }

    public Command deleteLink() {
        return Command.of("ip", "link", "del", "dev", settings.interfaceName());
    }

    /** True when {@code ip -o addr show} output holds {@code address}. */
    public boolean hasAddress(String ipAddrOutput, NodeLocalSettings.NodeAddress address) {
        String want = " " + address.hostPrefix() + " ";
        for (String line : ipAddrOutput.split("\n")) {
            if ((line + " ").contains(want)) {
                return true;
            }
        }
        return false;
    }

    /** True when {@code ip -o link show} output says the link is up. */
    public boolean isUp(String ipLinkOutput) {
        int open = ipLinkOutput.indexOf('<');
        int close = ipLinkOutput.indexOf('>', open + 1);
        if (open < 0 || close < 0) {
            return false;
        }
        for (String flag : ipLinkOutput.substring(open + 1, close).split(",")) {
            if (flag.equals("UP")) {
                return true;
            }
        }
        return false;
    }

    // ---- iptables ----

    /** Every address's rules, address by address in configured order; IPv6 ones go to ip6tables. */
    public List<IptablesRule> iptablesRules() {
        String p = String.valueOf(port);
        List<IptablesRule> rules = new ArrayList<>();
        for (NodeLocalSettings.NodeAddress address : settings.addresses()) {
            String host = address.hostPrefix();
            boolean v6 = address.ipv6();
            for (String proto : List.of("udp", "tcp")) {
                rules.add(new IptablesRule(v6, "raw", "PREROUTING", List.of("-d", host, "-p", proto, "-m", proto, "--dport", p, "-j", "NOTRACK")));
                rules.add(new IptablesRule(v6, "raw", "OUTPUT", List.of("-d", host, "-p", proto, "-m", proto, "--dport", p, "-j", "NOTRACK")));
                rules.add(new IptablesRule(v6, "raw", "OUTPUT", List.of("-s", host, "-p", proto, "-m", proto, "--sport", p, "-j", "NOTRACK")));
                rules.add(new IptablesRule(v6, "filter", "INPUT", List.of("-d", host, "-p", proto, "-m", proto, "--dport", p, "-j", "ACCEPT")));
                rules.add(new IptablesRule(v6, "filter", "OUTPUT", List.of("-s", host, "-p", proto, "-m", proto, "--sport", p, "-j", "ACCEPT")));
            }
        }
        return rules;
    }

    /** {@code iptables -C}: exit 0 when the rule is there. */
    public Command checkRule(IptablesRule rule) {
        return iptables(rule, "-C");
    }

    /** {@code iptables -I}: first in its chain, ahead of kube-proxy's and a firewall's rules. */
    public Command insertRule(IptablesRule rule) {
        return iptables(rule, "-I");
    }

    public Command deleteRule(IptablesRule rule) {
        return iptables(rule, "-D");
    }

    private Command iptables(IptablesRule rule, String op) {
        List<String> argv = new ArrayList<>(List.of(rule.ipv6() ? "ip6tables" : "iptables", "-w", "5", "-t", rule.table(), op, rule.chain()));
        argv.addAll(rule.spec());
        return new Command(argv, "");
    }

    // ---- nftables ----

    /**
     * The rules of our table as {@code nft list} prints them, chain by chain: the {@code inet} table holds
     * both families, each rule matching {@code ip} or {@code ip6} addresses.
     */
    public List<String> nftRules(String chain) {
        List<String> rules = new ArrayList<>();
        for (NodeLocalSettings.NodeAddress address : settings.addresses()) {
            String family = address.ipv6() ? "ip6" : "ip";
            String a = address.literal();
            for (String proto : List.of("udp", "tcp")) {
                rules.add(family + " daddr " + a + " " + proto + " dport " + port + " notrack");
                if (!chain.equals("prerouting")) {
                    rules.add(family + " saddr " + a + " " + proto + " sport " + port + " notrack");
                }
            }
        }
        return rules;
    }

    /** Creates (or replaces) the whole table in one transaction: {@code nft -f -} with this on stdin. */
    public Command replaceNftTable() {
        StringBuilder b = new StringBuilder();
        // "add" first so that "delete" cannot fail when the table is absent; the three run as one transaction.
        b.append("add table inet ").append(NFT_TABLE).append('\n');
        b.append("delete table inet ").append(NFT_TABLE).append('\n');
        b.append("table inet ").append(NFT_TABLE).append(" {\n");
        for (String chain : List.of("prerouting", "output")) {
            b.append("  chain ").append(chain).append(" {\n");
            b.append("    type filter hook ").append(chain).append(" priority raw; policy accept;\n");
            for (String rule : nftRules(chain)) {
                b.append("    ").append(rule).append('\n');
            }
            b.append("  }\n");
        }
        b.append("}\n");
        return new Command(List.of("nft", "-f", "-"), b.toString());
    }

    public Command listNftTable() {
        return Command.of("nft", "list", "table", "inet", NFT_TABLE);
    }

    public Command deleteNftTable() {
        return Command.of("nft", "delete", "table", "inet", NFT_TABLE);
    }

    /** True when {@code nft list table} output has both chains with every rule. */
    public boolean nftComplete(String listing) {
        List<String> lines = listing.lines().map(String::trim).toList();
        for (String chain : List.of("prerouting", "output")) {
            int start = lines.indexOf("chain " + chain + " {");
            if (start < 0) {
                return false;
            }
            int end = start;
            while (end < lines.size() && !lines.get(end).equals("}")) {
                end++;
            }
            List<String> body = lines.subList(start + 1, end);
            if (body.stream().noneMatch(l -> l.startsWith("type filter hook " + chain + " priority raw;"))
                    || !body.containsAll(nftRules(chain))) {
                return false;
            }
        }
        return true;
    }
}
