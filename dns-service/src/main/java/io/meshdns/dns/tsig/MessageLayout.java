package io.meshdns.dns.tsig;

/**
 * Where a DNS message's records lie in its wire bytes, found by walking the header's counts (RFC 1035 section
 * 4.1): where the message ends, and where its last record starts and of which type it is. A parser keeps neither,
 * yet a TSIG's MAC covers the bytes before that last record only (RFC 8945 section 4.3), so anything after the
 * message's end is unsigned. The last record's class and TTL as sent, too: a parser reads a TTL with the top bit set
 * as 0 (RFC 2181 section 8), so a TSIG whose TTL field was changed that way would still verify; and whether any
 * record's TTL has that bit set (an UPDATE asking for such a TTL is refused, not stored as 0). Pure; never
 * throws: a walk that runs off the bytes is {@code null}.
 */
public record MessageLayout(int end, int lastRecordStart, int lastRecordType, int lastRecordClass, long lastRecordTtl,
                            int tsigRecords, boolean ttlTopBitSet) {

    private static final int TSIG = 250;

    /** The layout of {@code wire}, or null when its counts claim more than it holds. */
    public static MessageLayout of(byte[] wire) {
        if (wire.length < 12) {
            return null;
        }
        int pos = 12;
        int questions = u16(wire, 4);
        for (int i = 0; i < questions; i++) {
            pos = skipName(wire, pos);
            if (pos < 0 || pos + 4 > wire.length) {
                return null;
            }
            pos += 4;
        }
        int lastStart = -1;
        int lastType = -1;
        int lastClass = -1;
        long lastTtl = -1;
        boolean topBit = false;
        int tsigs = 0;
        for (int section = 1; section <= 3; section++) {
            int count = u16(wire, 4 + 2 * section);
            for (int i = 0; i < count; i++) {
                int start = pos;
                pos = skipName(wire, pos);
                if (pos < 0 || pos + 10 > wire.length) {
                    return null;
                }
                int type = u16(wire, pos);
                int dclass = u16(wire, pos + 2);
                long ttl = ((long) u16(wire, pos + 4) << 16) | u16(wire, pos + 6);
                int rdLength = u16(wire, pos + 8);
                pos += 10 + rdLength;
                if (pos > wire.length) {
                    return null;
                }
                lastStart = start;
                lastType = type;
                lastClass = dclass;
                lastTtl = ttl;
                topBit |= type != 41 && ttl > 0x7FFFFFFFL; // not OPT: its "TTL" holds the extended RCODE and flags
                if (section == 3 && type == TSIG) {
                    tsigs++;
                }
            }
        }
        return new MessageLayout(pos, lastStart, lastType, lastClass, lastTtl, tsigs, topBit);
    }

    /** Past a (possibly compressed) name starting at {@code pos}; -1 when it runs off the end or uses a reserved label type. */
    private static int skipName(byte[] wire, int pos) {
        for (int labels = 0; labels < 128 && pos < wire.length; labels++) {
            int length = wire[pos] & 0xFF;
            if (length == 0) {
                return pos + 1;
            }
            if ((length & 0xC0) == 0xC0) {
                return pos + 2 <= wire.length ? pos + 2 : -1; // a pointer ends the name where it stands
            }
            if ((length & 0xC0) != 0) {
                return -1;
            }
            pos += 1 + length;
        }
        return -1;
    }

    private static int u16(byte[] wire, int at) {
        return ((wire[at] & 0xFF) << 8) | (wire[at + 1] & 0xFF);
    }
}
