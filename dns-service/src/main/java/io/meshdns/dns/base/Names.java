package io.meshdns.dns.base;

import org.xbill.DNS.Address;
import org.xbill.DNS.Name;
import org.xbill.DNS.TextParseException;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;

/** Small helpers for names and IP literals; never does a DNS lookup. */
public final class Names {
    private Names() {
    }

    /** Parses {@code text} as an absolute name (a trailing dot is optional). */
    public static Name absolute(String text) {
        try {
            return Name.fromString(text.endsWith(".") ? text : text + ".");
        } catch (TextParseException e) {
            throw new IllegalArgumentException("not a DNS name: " + text, e);
        }
    }

    /** {@code relative} (dot-separated labels) under {@code origin}; null when a label is not valid DNS. */
    public static Name under(String relative, Name origin) {
        try {
            return Name.concatenate(Name.fromString(relative), origin);
        } catch (TextParseException | org.xbill.DNS.NameTooLongException e) {
            return null;
        }
    }

    /** The name {@code label.parent}; null when {@code label} is not one valid label or the result is too long. */
    public static Name child(String label, Name parent) {
        if (parent == null || label.isEmpty() || label.indexOf('.') >= 0 || label.indexOf('\\') >= 0) return null;
        try {
            return Name.concatenate(Name.fromString(label), parent);
        } catch (TextParseException | org.xbill.DNS.NameTooLongException e) {
            return null;
        }
    }

    /** {@code prefix} (relative) + {@code suffix}; null when too long. */
    public static Name concat(Name prefix, Name suffix) {
        try {
            return Name.concatenate(prefix, suffix);
        } catch (org.xbill.DNS.NameTooLongException e) {
            return null;
        }
    }

    /** An IPv4 or IPv6 literal, or null when {@code text} is anything else (never resolved). */
    public static InetAddress ip(String text) {
        if (text == null || text.isEmpty()) return null;
        byte[] b = Address.toByteArray(text, Address.IPv4);
        if (b == null) b = Address.toByteArray(text, Address.IPv6);
        if (b == null) return null;
        try {
            return InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /**
     * The dashed form of an IP used for pod names and generated endpoint hostnames, as CoreDNS writes it:
     * {@code 10.1.2.3 -> 10-1-2-3}, {@code fd00::1 -> fd00--1}.
     */
    public static String dashed(InetAddress ip) {
        if (ip instanceof Inet6Address) {
            return compressedV6(ip).replace(':', '-');
        }
        return ip.getHostAddress().replace('.', '-');
    }

    /** RFC 5952 text of an IPv6 address (Java prints it uncompressed). */
    public static String compressedV6(InetAddress ip) {
        return rfc5952(ip.getAddress());
    }

    private static String rfc5952(byte[] a) {
        int[] g = new int[8];
        for (int i = 0; i < 8; i++) g[i] = ((a[2 * i] & 0xff) << 8) | (a[2 * i + 1] & 0xff);
        int bestStart = -1, bestLen = 0;
        for (int i = 0; i < 8; ) {
            if (g[i] != 0) { i++; continue; }
            int j = i;
            while (j < 8 && g[j] == 0) j++;
            if (j - i > bestLen && j - i >= 2) { bestStart = i; bestLen = j - i; }
            i = j;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') sb.append(':');
            sb.append(Integer.toHexString(g[i]));
        }
        return sb.toString().toLowerCase(Locale.ROOT);
    }

    /** Parses the dashed form back ({@code 10-1-2-3}, {@code fd00--1}); null when it is not one. */
    public static InetAddress undashed(String label) {
        InetAddress v4 = label.indexOf('.') < 0 ? ip(label.replace('-', '.')) : null;
        if (v4 != null && label.chars().filter(c -> c == '-').count() == 3) return v4;
        if (label.indexOf(':') >= 0) return null;
        InetAddress v6 = ip(label.replace('-', ':'));
        return v6 instanceof Inet6Address ? v6 : null;
    }
}
