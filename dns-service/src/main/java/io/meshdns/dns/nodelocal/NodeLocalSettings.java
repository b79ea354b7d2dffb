package io.meshdns.dns.nodelocal;

import io.meshdns.dns.base.ConfigValues;

import io.meshdns.dns.InvalidConfigException;
import io.netty.util.NetUtil;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * {@link NodeLocalConfig} checked once at start. The address and the interface name end up as arguments
 * of {@code ip}, {@code iptables} and {@code nft}, so they are checked to be exactly an address literal and
 * a Linux interface name: nothing else can reach those commands.
 */
public record NodeLocalSettings(boolean enabled, String address, boolean ipv6, String interfaceName, Rules rules,
                                boolean keepOnExit, Duration checkInterval) {

    /** Linux interface names: at most 15 bytes (IFNAMSIZ - 1), no '/', no whitespace; we allow a safe subset. */
    private static final Pattern INTERFACE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,14}");

    /** The tool that installs the NOTRACK rules. */
    public enum Rules {
        IPTABLES, NFTABLES, NONE
    }

    public static NodeLocalSettings from(NodeLocalConfig config) {
        boolean enabled = bool(NodeLocalConfig.ENABLED, config.enabled());
        String address = config.address().trim();
        byte[] bytes = NetUtil.createByteArrayFromIpAddressString(address);
        if (bytes == null || address.contains("%")) {
            throw new InvalidConfigException(NodeLocalConfig.ADDRESS, "'" + config.address() + "' is not an IPv4 or IPv6 address literal");
        }
        String canonical = NetUtil.bytesToIpAddress(bytes);
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
        return new NodeLocalSettings(enabled, canonical, bytes.length == 16, name, rules, keep, interval);
    }

    private static boolean bool(String key, String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        if (v.equals("true") || v.equals("false")) {
            return v.equals("true");
        }
        throw new InvalidConfigException(key, "'" + value + "' is neither true nor false");
    }
}
