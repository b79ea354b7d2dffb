package io.meshdns.discovery.vip;

import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * One CIDR that VIPs are taken from, e.g. {@code 240.240.0.0/16} or {@code 2001:2::/48}. Addresses are
 * numbered by their offset from the network address. The network address itself is never handed out,
 * nor, in IPv4, the last address, so a VIP never looks like a network or broadcast address. An IPv6
 * range is capped at 2^62 usable offsets, which is more than any catalog needs.
 */
public record VipRange(String cidr, boolean ipv6, BigInteger network, long size) {
    private static final long MAX_SIZE = 1L << 62;

    /** Parses {@code cidr}; throws IllegalArgumentException with a message fit for the config error. */
    public static VipRange parse(String cidr) {
        String s = cidr.trim();
        int slash = s.indexOf('/');
        if (slash < 0) throw new IllegalArgumentException("'" + cidr + "' is not a CIDR (address/prefix)");
        String ip = s.substring(0, slash);
        if (!ip.matches("[0-9a-fA-F:.]+")) throw new IllegalArgumentException("'" + cidr + "' is not an IP CIDR");
        InetAddress address;
        int bits;
        try {
            address = InetAddress.getByName(ip); // a literal: no lookup happens for [0-9a-f:.]+
            bits = Integer.parseInt(s.substring(slash + 1));
        } catch (UnknownHostException | NumberFormatException e) {
            throw new IllegalArgumentException("'" + cidr + "' is not an IP CIDR");
        }
        int width = address.getAddress().length * 8;
        if (bits < 0 || bits > width) throw new IllegalArgumentException("'" + cidr + "' has a prefix length outside 0.." + width);
        boolean v6 = width == 128;
        BigInteger hostMask = BigInteger.ONE.shiftLeft(width - bits).subtract(BigInteger.ONE);
        BigInteger net = new BigInteger(1, address.getAddress()).andNot(hostMask);
        BigInteger total = BigInteger.ONE.shiftLeft(width - bits);
        // Offsets 1 .. size: skip the network address, and in IPv4 the broadcast address.
        BigInteger usable = total.subtract(v6 ? BigInteger.ONE : BigInteger.TWO);
        long size = usable.min(BigInteger.valueOf(MAX_SIZE)).longValue();
        if (size < 1) throw new IllegalArgumentException("'" + cidr + "' has no usable address");
        return new VipRange(s, v6, net, size);
    }

    /** The address at {@code index} (0 .. size-1) of the usable addresses, as text. */
    public String addressAt(long index) {
        if (index < 0 || index >= size) throw new IndexOutOfBoundsException(index);
        BigInteger value = network.add(BigInteger.valueOf(index + 1));
        byte[] raw = value.toByteArray();
        byte[] bytes = new byte[ipv6 ? 16 : 4];
        int copy = Math.min(raw.length, bytes.length);
        System.arraycopy(raw, raw.length - copy, bytes, bytes.length - copy, copy);
        try {
            return InetAddress.getByAddress(bytes).getHostAddress();
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // cannot happen for 4 or 16 bytes
        }
    }

    /** The index of {@code ip} in this range, or -1 when it is not one of its usable addresses. */
    public long indexOf(String ip) {
        if (!ip.matches("[0-9a-fA-F:.]+")) return -1;
        byte[] bytes;
        try {
            bytes = InetAddress.getByName(ip).getAddress();
        } catch (UnknownHostException e) {
            return -1;
        }
        if (bytes.length != (ipv6 ? 16 : 4)) return -1;
        BigInteger offset = new BigInteger(1, bytes).subtract(network).subtract(BigInteger.ONE);
        if (offset.signum() < 0 || offset.compareTo(BigInteger.valueOf(size)) >= 0) return -1;
        return offset.longValue();
    }
}
