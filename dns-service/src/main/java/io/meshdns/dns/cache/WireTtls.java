package io.meshdns.dns.cache;

/**
 * Finds the TTL field of every resource record in a DNS message in wire format (RFC 1035 §4.1), so
 * that a cache hit can count TTLs down in a byte copy instead of rebuilding records. Pure.
 */
final class WireTtls {
    private WireTtls() {
    }

    /** Offsets of the 32-bit TTL fields of all answer, authority and additional records, in order. */
    static int[] offsets(byte[] wire) {
        int qd = u16(wire, 4);
        int rrs = u16(wire, 6) + u16(wire, 8) + u16(wire, 10);
        int pos = 12;
        for (int i = 0; i < qd; i++) {
            pos = skipName(wire, pos) + 4;
        }
        int[] offsets = new int[rrs];
        for (int i = 0; i < rrs; i++) {
            pos = skipName(wire, pos);
            offsets[i] = pos + 4; // after TYPE and CLASS
            int rdLength = u16(wire, pos + 8);
            pos += 10 + rdLength;
        }
        if (pos > wire.length) {
            throw new IllegalArgumentException("message shorter than its records");
        }
        return offsets;
    }

    /** Index just past the (possibly compressed) name starting at {@code pos}. */
    static int skipName(byte[] wire, int pos) {
        while (true) {
            int len = wire[pos] & 0xFF;
            if (len == 0) {
                return pos + 1;
            }
            if ((len & 0xC0) == 0xC0) {
                return pos + 2; // a compression pointer ends the name
            }
            pos += 1 + len;
        }
    }

    static int u16(byte[] b, int off) {
        return ((b[off] & 0xFF) << 8) | (b[off + 1] & 0xFF);
    }

    static long u32(byte[] b, int off) {
        return ((long) (b[off] & 0xFF) << 24) | ((b[off + 1] & 0xFF) << 16) | ((b[off + 2] & 0xFF) << 8)
                | (b[off + 3] & 0xFF);
    }

    static void put32(byte[] b, int off, long v) {
        b[off] = (byte) (v >>> 24);
        b[off + 1] = (byte) (v >>> 16);
        b[off + 2] = (byte) (v >>> 8);
        b[off + 3] = (byte) v;
    }
}
