package io.meshdns.dns.base;

import io.netty.util.NetUtil;

/** One CIDR block, IPv4 or IPv6, matched against raw address bytes. */
public record Cidr(byte[] network, int prefixLength) {

    /** Parses {@code 10.0.0.0/8}, {@code ::1/128}, or a bare address (a /32 or /128). */
    public static Cidr parse(String text) {
        String s = text.trim();
        int slash = s.indexOf('/');
        String addr = slash < 0 ? s : s.substring(0, slash);
        byte[] bytes = NetUtil.createByteArrayFromIpAddressString(addr);
        if (bytes == null || addr.contains("%")) {
            throw new IllegalArgumentException("'" + text + "' is not an IP address or CIDR");
        }
        int max = bytes.length * 8;
        int prefix = max;
        if (slash >= 0) {
            try {
                prefix = Integer.parseInt(s.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + text + "' has no numeric prefix length");
            }
            if (prefix < 0 || prefix > max) {
                throw new IllegalArgumentException("'" + text + "' has a prefix length outside 0.." + max);
            }
        }
        return new Cidr(bytes, prefix);
    }

    public boolean contains(byte[] address) {
        if (address.length != network.length) {
            return false;
        }
        int full = prefixLength / 8;
        for (int i = 0; i < full; i++) {
            if (address[i] != network[i]) {
                return false;
            }
        }
        int rest = prefixLength % 8;
        if (rest == 0) {
            return true;
        }
        int mask = (0xff << (8 - rest)) & 0xff;
        return (address[full] & mask) == (network[full] & mask);
    }

    @Override
    public String toString() {
        return NetUtil.bytesToIpAddress(network) + "/" + prefixLength;
    }
}
