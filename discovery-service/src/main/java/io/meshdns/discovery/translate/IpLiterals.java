package io.meshdns.discovery.translate;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** Strict IP literal checks that never resolve a name (a typo must not become a DNS lookup). */
public final class IpLiterals {
    private IpLiterals() {
    }

    public static boolean isIpv4(String s) {
        if (s == null) return false;
        String[] parts = s.split("\\.", -1);
        if (parts.length != 4) return false;
        for (String p : parts) {
            if (p.isEmpty() || p.length() > 3) return false;
            for (int i = 0; i < p.length(); i++) {
                if (p.charAt(i) < '0' || p.charAt(i) > '9') return false;
            }
            if (p.length() > 1 && p.charAt(0) == '0') return false;
            if (Integer.parseInt(p) > 255) return false;
        }
        return true;
    }

    public static boolean isIpv6(String s) {
        if (s == null || s.indexOf(':') < 0 || s.indexOf('%') >= 0) return false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = c == ':' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
            if (!ok) return false;
        }
        try {
            // A string with ':' is parsed as a literal only; InetAddress never does a lookup for it.
            // An IPv4-mapped literal (::ffff:a.b.c.d) comes back as an Inet4Address: still IPv6 syntax.
            InetAddress.getByName(s);
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }

    public static boolean isIp(String s) {
        return isIpv4(s) || isIpv6(s);
    }

    /** A DNS name as a host: labels of letters, digits, '-' and '_' (1-63 chars), at most 253 chars, optional leading "*.". */
    public static boolean isHostName(String s, boolean allowWildcard) {
        if (s == null || s.isEmpty()) return false;
        String name = s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
        if (allowWildcard && name.startsWith("*.")) name = name.substring(2);
        if (name.equals("*") && allowWildcard) return true;
        if (name.isEmpty() || name.length() > 253) return false;
        for (String label : name.split("\\.", -1)) {
            if (label.isEmpty() || label.length() > 63) return false;
            for (int i = 0; i < label.length(); i++) {
                char c = label.charAt(i);
                boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
                if (!ok) return false;
            }
        }
        return true;
    }
}
