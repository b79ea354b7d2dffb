package io.meshdns.dns.nodelocal;

import io.meshdns.dns.InvalidConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The commands and rules for a node-local address, and the validation that guards their arguments. */
class RuleSetTest {

    record Config(String enabled, Optional<String> address, Optional<List<String>> addresses, String interfaceName,
                  String rules, String keepOnExit, String checkInterval) implements NodeLocalConfig {
        /** The single-address key of older configurations. */
        Config(String enabled, String address, String interfaceName, String rules, String keepOnExit, String checkInterval) {
            this(enabled, Optional.of(address), Optional.empty(), interfaceName, rules, keepOnExit, checkInterval);
        }

        static Config list(String addresses, String rules) {
            return new Config("true", Optional.empty(), Optional.of(List.of(addresses.split(","))), "meshdns0", rules,
                    "false", "60s");
        }
    }

    private static NodeLocalSettings settings(String address, String rules) {
        return NodeLocalSettings.from(new Config("true", address, "meshdns0", rules, "false", "60s"));
    }

    @Test
    void defaultsAreNodeLocalDnsCachesAddressOnADummyInterface() {
        NodeLocalSettings s = NodeLocalSettings.from(new Config("false", "169.254.20.10", "meshdns0", "iptables", "false", "60s"));
        assertFalse(s.enabled());
        assertEquals(NodeLocalSettings.Rules.IPTABLES, s.rules());
        assertEquals(Duration.ofSeconds(60), s.checkInterval());
        RuleSet r = new RuleSet(settings("169.254.20.10", "iptables"), 53);
        assertEquals("ip link add meshdns0 type dummy", r.addLink().toString());
        assertEquals("ip addr add 169.254.20.10/32 dev meshdns0", r.addAddress(r.settings().addresses().get(0)).toString());
        NodeLocalSettings neither = NodeLocalSettings.from(new Config("true", Optional.empty(), Optional.empty(), "meshdns0",
                "iptables", "false", "60s"));
        assertEquals(List.of("169.254.20.10"), neither.literals());
        assertEquals("ip link del dev meshdns0", r.deleteLink().toString());
    }

    @Test
    void iptablesRulesAreNotrackForUdpAndTcpToAndFromTheAddress() {
        RuleSet r = new RuleSet(settings("169.254.20.10", "iptables"), 53);
        List<String> lines = r.iptablesRules().stream().map(r::insertRule).map(Command::toString).toList();
        assertEquals(List.of(
                "iptables -w 5 -t raw -I PREROUTING -d 169.254.20.10/32 -p udp -m udp --dport 53 -j NOTRACK",
                "iptables -w 5 -t raw -I OUTPUT -d 169.254.20.10/32 -p udp -m udp --dport 53 -j NOTRACK",
                "iptables -w 5 -t raw -I OUTPUT -s 169.254.20.10/32 -p udp -m udp --sport 53 -j NOTRACK",
                "iptables -w 5 -t filter -I INPUT -d 169.254.20.10/32 -p udp -m udp --dport 53 -j ACCEPT",
                "iptables -w 5 -t filter -I OUTPUT -s 169.254.20.10/32 -p udp -m udp --sport 53 -j ACCEPT",
                "iptables -w 5 -t raw -I PREROUTING -d 169.254.20.10/32 -p tcp -m tcp --dport 53 -j NOTRACK",
                "iptables -w 5 -t raw -I OUTPUT -d 169.254.20.10/32 -p tcp -m tcp --dport 53 -j NOTRACK",
                "iptables -w 5 -t raw -I OUTPUT -s 169.254.20.10/32 -p tcp -m tcp --sport 53 -j NOTRACK",
                "iptables -w 5 -t filter -I INPUT -d 169.254.20.10/32 -p tcp -m tcp --dport 53 -j ACCEPT",
                "iptables -w 5 -t filter -I OUTPUT -s 169.254.20.10/32 -p tcp -m tcp --sport 53 -j ACCEPT"), lines);
        assertTrue(r.checkRule(r.iptablesRules().get(0)).toString().contains(" -C PREROUTING "));
        assertTrue(r.deleteRule(r.iptablesRules().get(0)).toString().contains(" -D PREROUTING "));
    }

    @Test
    void ipv6UsesIp6tablesAndHostPrefix() {
        RuleSet r = new RuleSet(settings("fd00:0:0::a", "iptables"), 53);
        Command first = r.insertRule(r.iptablesRules().get(0));
        assertEquals("ip6tables -w 5 -t raw -I PREROUTING -d fd00::a/128 -p udp -m udp --dport 53 -j NOTRACK", first.toString());
        assertTrue(r.replaceNftTable().stdin().contains("ip6 daddr fd00::a udp dport 53 notrack"));
    }

    /** What nft 1.0.6 prints for the table replaceNftTable() creates, and the same with one rule flushed away. */
    @Test
    void nftablesTableIsOneTransactionAndItsListingIsChecked() {
        RuleSet r = new RuleSet(settings("169.254.20.10", "nftables"), 53);
        Command replace = r.replaceNftTable();
        assertEquals(List.of("nft", "-f", "-"), replace.argv());
        assertTrue(replace.stdin().startsWith("add table inet meshdns\ndelete table inet meshdns\ntable inet meshdns {\n"), replace.stdin());
        String listing = """
                table inet meshdns {
                \tchain prerouting {
                \t\ttype filter hook prerouting priority raw; policy accept;
                \t\tip daddr 169.254.20.10 udp dport 53 notrack
                \t\tip daddr 169.254.20.10 tcp dport 53 notrack
                \t}

                \tchain output {
                \t\ttype filter hook output priority raw; policy accept;
                \t\tip daddr 169.254.20.10 udp dport 53 notrack
                \t\tip saddr 169.254.20.10 udp sport 53 notrack
                \t\tip daddr 169.254.20.10 tcp dport 53 notrack
                \t\tip saddr 169.254.20.10 tcp sport 53 notrack
                \t}
                }
                """;
        assertTrue(r.nftComplete(listing));
        assertFalse(r.nftComplete(listing.replace("\t\tip saddr 169.254.20.10 tcp sport 53 notrack\n", "")));
        assertFalse(r.nftComplete(listing.replace("priority raw", "priority filter")));
        assertFalse(r.nftComplete(""));
    }

    @Test
    void linkAndAddressOutputIsRead() {
        RuleSet r = new RuleSet(settings("169.254.20.10", "none"), 53);
        assertTrue(r.isUp("5: meshdns0: <BROADCAST,NOARP,UP,LOWER_UP> mtu 1500 qdisc noqueue state UNKNOWN"));
        assertFalse(r.isUp("5: meshdns0: <BROADCAST,NOARP> mtu 1500 qdisc noop state DOWN"));
        NodeLocalSettings.NodeAddress a = r.settings().addresses().get(0);
        assertTrue(r.hasAddress("5: meshdns0    inet 169.254.20.10/32 scope global meshdns0\\       valid_lft forever", a));
        assertFalse(r.hasAddress("5: meshdns0    inet 169.254.20.100/32 scope global meshdns0", a));
    }

    /** The kube-dns ClusterIP mode on a dual-stack node: every address on the interface, NOTRACK for each in its family. */
    @Test
    void aListOfAddressesGetsEveryAddressAndEveryRuleInItsFamily() {
        NodeLocalSettings s = NodeLocalSettings.from(Config.list("169.254.20.10, fd00:0:0::a ,10.96.0.10", "iptables"));
        assertEquals(List.of("169.254.20.10", "fd00::a", "10.96.0.10"), s.literals());
        RuleSet r = new RuleSet(s, 53);
        assertEquals(List.of("ip addr add 169.254.20.10/32 dev meshdns0", "ip addr add fd00::a/128 dev meshdns0 nodad",
                "ip addr add 10.96.0.10/32 dev meshdns0"), s.addresses().stream().map(r::addAddress).map(Command::toString).toList());
        List<String> lines = r.iptablesRules().stream().map(r::insertRule).map(Command::toString).toList();
        assertEquals(30, lines.size());
        for (String host : List.of("169.254.20.10/32", "10.96.0.10/32")) {
            assertTrue(lines.contains("iptables -w 5 -t raw -I PREROUTING -d " + host + " -p udp -m udp --dport 53 -j NOTRACK"), lines.toString());
            assertTrue(lines.contains("iptables -w 5 -t raw -I OUTPUT -s " + host + " -p tcp -m tcp --sport 53 -j NOTRACK"), lines.toString());
        }
        assertTrue(lines.contains("ip6tables -w 5 -t raw -I PREROUTING -d fd00::a/128 -p tcp -m tcp --dport 53 -j NOTRACK"));
        assertTrue(lines.stream().filter(l -> l.contains("fd00::a")).allMatch(l -> l.startsWith("ip6tables ")));
        assertTrue(lines.stream().filter(l -> !l.contains("fd00::a")).allMatch(l -> l.startsWith("iptables ")));

        RuleSet nft = new RuleSet(NodeLocalSettings.from(Config.list("169.254.20.10,fd00::a,10.96.0.10", "nftables")), 53);
        String table = nft.replaceNftTable().stdin();
        assertTrue(table.contains("ip daddr 169.254.20.10 udp dport 53 notrack"), table);
        assertTrue(table.contains("ip6 daddr fd00::a tcp dport 53 notrack"), table);
        assertTrue(table.contains("ip6 saddr fd00::a udp sport 53 notrack"), table);
        assertTrue(table.contains("ip saddr 10.96.0.10 tcp sport 53 notrack"), table);
        assertEquals(6, nft.nftRules("prerouting").size());
        assertEquals(12, nft.nftRules("output").size());
        String listing = "table inet meshdns {\n\tchain prerouting {\n\t\ttype filter hook prerouting priority raw; policy accept;\n"
                + nft.nftRules("prerouting").stream().map(l -> "\t\t" + l + "\n").reduce("", String::concat) + "\t}\n\n"
                + "\tchain output {\n\t\ttype filter hook output priority raw; policy accept;\n"
                + nft.nftRules("output").stream().map(l -> "\t\t" + l + "\n").reduce("", String::concat) + "\t}\n}\n";
        assertTrue(nft.nftComplete(listing));
        assertFalse(nft.nftComplete(listing.replace("\t\tip6 saddr fd00::a tcp sport 53 notrack\n", "")),
                "one family's rule missing is noticed");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "169.254.20.10,10.96.0.10,169.254.20.10|'169.254.20.10' is listed twice",
            "fd00::a,fd00:0:0:0::A|'fd00:0:0:0::A' is listed twice (as fd00::a)",
            "169.254.20.10,127.0.0.1|'127.0.0.1' is a loopback address",
            "169.254.20.10,::1|'::1' is the IPv6 loopback address",
            "0.0.0.0|'0.0.0.0' is the unspecified address",
            "::|'::' is the unspecified address",
            "224.0.0.251|'224.0.0.251' is a multicast address",
            "ff02::fb|'ff02::fb' is a multicast address",
            "255.255.255.255|'255.255.255.255' is the limited broadcast address",
            "fe80::a|'fe80::a' is IPv6 link-local",
            "169.254.20.10,kube-dns|'kube-dns' is not an IPv4 or IPv6 address literal"})
    void badAddressListsNameTheListKey(String addresses, String message) {
        InvalidConfigException e = assertThrows(InvalidConfigException.class,
                () -> NodeLocalSettings.from(Config.list(addresses, "iptables")));
        assertEquals(NodeLocalConfig.ADDRESSES, e.key());
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }

    @Test
    void bothAddressKeysAtOnceAreRefused() {
        InvalidConfigException e = assertThrows(InvalidConfigException.class, () -> NodeLocalSettings.from(new Config("true",
                Optional.of("169.254.20.10"), Optional.of(List.of("fd00::a")), "meshdns0", "iptables", "false", "60s")));
        assertEquals(NodeLocalConfig.ADDRESSES, e.key());
        assertTrue(e.getMessage().contains("set only meshdns.dns.node-local.addresses"), e.getMessage());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "maybe|169.254.20.10|meshdns0|iptables|false|60s|meshdns.dns.node-local.enabled: 'maybe'",
            "true|169.254.20.300|meshdns0|iptables|false|60s|meshdns.dns.node-local.address: '169.254.20.300' is not",
            "true|fe80::1%eth0|meshdns0|iptables|false|60s|meshdns.dns.node-local.address:",
            "true|169.254.20.10|eth0;reboot|iptables|false|60s|meshdns.dns.node-local.interface: 'eth0;reboot' is not",
            "true|169.254.20.10|a-name-far-too-long|iptables|false|60s|meshdns.dns.node-local.interface:",
            "true|169.254.20.10|-x|iptables|false|60s|meshdns.dns.node-local.interface:",
            "true|169.254.20.10|meshdns0|ipchains|false|60s|meshdns.dns.node-local.rules: 'ipchains' is not one of iptables, nftables, none",
            "true|169.254.20.10|meshdns0|iptables|no|60s|meshdns.dns.node-local.keep-on-exit:",
            "true|169.254.20.10|meshdns0|iptables|false|0s|meshdns.dns.node-local.check-interval:"})
    void badValuesNameTheirKey(String enabled, String address, String name, String rules, String keep, String interval,
                               String message) {
        InvalidConfigException e = assertThrows(InvalidConfigException.class,
                () -> NodeLocalSettings.from(new Config(enabled, address, name, rules, keep, interval)));
        assertTrue(e.getMessage().startsWith(message), e.getMessage());
    }
}
