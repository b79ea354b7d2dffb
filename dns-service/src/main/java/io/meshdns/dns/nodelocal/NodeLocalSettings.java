package io.meshdns.dns.nodelocal;

import io.meshdns.dns.base.ConfigValues;

import io.meshdns.dns.InvalidConfigException;
import io.netty.util.NetUtil;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@link NodeLocalConfig} checked once at start. The addresses and the interface name end up as arguments
 * of {@code ip}, {@code iptables} and {@code nft}, so they are checked to be exactly address literals and
 * a Linux interface name: nothing else can reach those commands.
 */
public record NodeLocalSettings(boolean enabled, List<NodeAddress> addresses, String interfaceName, Rules rules,
                                boolean keepOnExit, Duration checkInterval) {

    /** NodeLocal DNSCache's address, used when neither address key is set. */
    public static final String DEFAULT_ADDRESS = "169.254.20.10";

    /** Linux interface names: at most 15 bytes (IFNAMSIZ - 1), no '/', no whitespace; we allow a safe subset. */
    private static final Pattern INTERFACE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,14}");

    /** The tool that installs the NOTRACK rules. */
    public enum Rules {
        IPTABLES, NFTABLES, NONE
    }

    /** One address the node serves DNS on: its canonical literal and its family. */
    public record NodeAddress(String literal, boolean ipv6) {
        /** As {@code ip addr} and iptables write a single host: {@code /32} or {@code /128}. */
        public String hostPrefix() {
            return literal + (ipv6 ? "/128" : "/32");
        }
    }

    public NodeLocalSettings {
        addresses = List.copyOf(addresses);
    }

    /** The canonical literals, in configured order. */
    public List<String> literals() {
        return addresses.stream().map(NodeAddress::literal).toList();
    }

    public static NodeLocalSettings from(NodeLocalConfig config) {
        boolean enabled = bool(NodeLocalConfig.ENABLED, config.enabled());
        List<NodeAddress> addresses = addresses(config);
        String name = config.interfaceName().trim();
        if (!INTERFACE_NAME.matcher(name).matches()) {
            throw new InvalidConfigException(NodeLocalConfig.INTERFACE, "'" + config.interfaceName()
                    + "' is not an interface name (1-15 of A-Z a-z 0-9 _ . -, starting with a letter or digit)");
        }
        Rules rules;
        try {
            rules = Rules.valueOf(config.rules().trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new InvalidConfigException(NodeLocalConfig.RULES, "'" + config.rules() + "' is not one of iptables, nftables, none");
        }
        boolean keep = bool(NodeLocalConfig.KEEP_ON_EXIT, config.keepOnExit());
        Duration interval = ConfigValues.parseDuration(NodeLocalConfig.CHECK_INTERVAL, config.checkInterval());
        return new NodeLocalSettings(enabled, addresses, name, rules, keep, interval);
    }

    /**
     * {@code addresses}, or the single {@code address} of older configurations, or the default; both keys at
     * once is refused (which one was meant?). Every entry is a host address a pod can be routed to.
     */
    private static List<NodeAddress> addresses(NodeLocalConfig config) {
        List<String> listed = config.addresses().orElse(List.of()).stream().map(String::trim).filter(s -> !s.isEmpty()).toList();
        String key = NodeLocalConfig.ADDRESSES;
        if (!listed.isEmpty() && config.address().isPresent()) {
            throw new InvalidConfigException(key, "'" + String.join(",", listed) + "' given together with "
                    + NodeLocalConfig.ADDRESS + "='" + config.address().get() + "': set only " + NodeLocalConfig.ADDRESSES);
        }
        if (listed.isEmpty()) {
            key = NodeLocalConfig.ADDRESS;
            listed = List.of(config.address().map(String::trim).orElse(DEFAULT_ADDRESS));
        }
        Set<String> seen = new LinkedHashSet<>();
        List<NodeAddress> out = new ArrayList<>();
        for (String entry : listed) {
            NodeAddress a = parse(key, entry);
            if (!seen.add(a.literal())) {
                throw new InvalidConfigException(key, "'" + entry + "' is listed twice (as " + a.literal() + ")");
            }
            out.add(a);
        }
        return out;
    }

    private static NodeAddress parse(String key, String entry) {
        byte[] bytes = NetUtil.createByteArrayFromIpAddressString(entry);
        if (bytes == null || entry.contains("%")) {
            throw new InvalidConfigException(key, "'" + entry + "' is not an IPv4 or IPv6 address literal");
        }
        String why = unsuitable(bytes);
        if (why != null) {
            throw new InvalidConfigException(key, "'" + entry + "' " + why);
        }
        return new NodeAddress(NetUtil.bytesToIpAddress(bytes), bytes.length == 16);
    }

    /**
     * Why pods could not use this address as their nameserver through an interface of the node's own, or null.
     * IPv6 link-local (fe80::/10) is refused too: it is reachable only on its own link, and our interface is no
     * pod's link (use a ULA such as fd00::a, as NodeLocal DNSCache's IPv6 examples do).
     */
    static String unsuitable(byte[] b) {
        boolean allZero = true;
        for (byte x : b) {
            allZero &= x == 0;
        }
        if (allZero) {
            return "is the unspecified address, not one pods can send to";
        }
        if (b.length == 4) {
            int first = b[0] & 0xff;
            if (first == 127) return "is a loopback address: pods cannot reach the node's loopback";
            if (first == 0) return "is in 0.0.0.0/8 (this network), not a host address";
            if (first >= 224 && first <= 239) return "is a multicast address";
            if ((b[0] & b[1] & b[2] & b[3]) == (byte) 0xff) return "is the limited broadcast address";
            if (first >= 240) return "is in the reserved 240.0.0.0/4";
            return null;
        }
        boolean loopback = b[15] == 1;
        for (int i = 0; i < 15; i++) {
            loopback &= b[i] == 0;
        }
        if (loopback) return "is the IPv6 loopback address: pods cannot reach the node's loopback";
        if ((b[0] & 0xff) == 0xff) return "is a multicast address";
        if ((b[0] & 0xff) == 0xfe && (b[1] & 0xc0) == 0x80) {
            return "is IPv6 link-local (fe80::/10), reachable only on its own link, not on the node's interface: use a ULA (fd00::/8)";
        }
        boolean mapped = (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff;
        for (int i = 0; i < 10; i++) {
            mapped &= b[i] == 0;
        }
        if (mapped) return "is an IPv4-mapped IPv6 address: list the IPv4 address itself";
        return null;
    }

    private static boolean bool(String key, String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        if (v.equals("true") || v.equals("false")) {
            return v.equals("true");
        }
        throw new InvalidConfigException(key, "'" + value + "' is neither true nor false");
    }
}
