package io.meshdns.dns.server;

import io.meshdns.dns.base.Cidr;

import io.netty.util.NetUtil;

import java.util.List;

/**
 * The allowed-clients list. The default is loopback only, so a misconfigured bind address never
 * turns the node into an open resolver. IPv4-mapped IPv6 senders (dual-stack sockets) are matched
 * as IPv4.
 */
public final class ClientAcl {
    private final Cidr[] allowed;

    public ClientAcl(List<Cidr> allowed) {
        this.allowed = allowed.toArray(Cidr[]::new);
    }

    /** {@code host} is the textual IP a socket reports for its peer. */
    public boolean allows(String host) {
        byte[] address = addressBytes(host);
        return address != null && allows(address);
    }

    public boolean allows(byte[] address) {
        for (Cidr cidr : allowed) {
            if (cidr.contains(address)) {
                return true;
            }
        }
        return false;
    }

    /** Raw bytes of an IP literal, IPv4-mapped IPv6 folded to 4 bytes; null if not a literal. */
    static byte[] addressBytes(String host) {
        int percent = host.indexOf('%');
        byte[] bytes = NetUtil.createByteArrayFromIpAddressString(percent < 0 ? host : host.substring(0, percent));
        if (bytes != null && bytes.length == 16 && isV4Mapped(bytes)) {
            byte[] v4 = new byte[4];
            System.arraycopy(bytes, 12, v4, 0, 4);
            return v4;
        }
        return bytes;
    }

    private static boolean isV4Mapped(byte[] b) {
        for (int i = 0; i < 10; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff;
    }
}
