package io.meshdns.dns.metrics;

/**
 * Reads what the metrics need from a query's wire bytes without parsing it into objects: the query path
 * calls this once per query, so it walks the sections by their length fields and allocates nothing.
 */
public final class QueryBits {
    private static final int HEADER = 12;
    private static final int TYPE_OPT = 41;

    private QueryBits() {
    }

    /** The EDNS0 DO bit (RFC 3225) of the query's OPT record; false without one or for a truncated message. */
    public static boolean dnssecOk(byte[] m) {
        return m != null && dnssecOk(m, m.length);
    }

    /** {@link #dnssecOk(byte[])} for the message in the first {@code length} bytes of {@code m}. */
    public static boolean dnssecOk(byte[] m, int length) {
        if (length < HEADER) {
            return false;
        }
        int arcount = u16(m, 10);
        if (arcount == 0) {
            return false;
        }
        int qdcount = u16(m, 4);
        int rrs = u16(m, 6) + u16(m, 8);
        int at = HEADER;
        for (int i = 0; i < qdcount; i++) {
            at = skipName(m, at, length);
            if (at < 0 || at + 4 > length) return false;
            at += 4;
        }
        for (int i = 0; i < rrs; i++) {
            at = skipRecord(m, at, length);
            if (at < 0) return false;
        }
        for (int i = 0; i < arcount; i++) {
            int name = skipName(m, at, length);
            if (name < 0 || name + 10 > length) return false;
            if (u16(m, name) == TYPE_OPT) {
                return (m[name + 6] & 0x80) != 0; // TTL = extended rcode, version, then the flags: DO is the top bit
            }
            at = skipRecord(m, at, length);
            if (at < 0) return false;
        }
        return false;
    }

    private static int skipRecord(byte[] m, int at, int length) {
        int name = skipName(m, at, length);
        if (name < 0 || name + 10 > length) return -1;
        int end = name + 10 + u16(m, name + 8);
        return end > length ? -1 : end;
    }

    /** The offset after the name at {@code at}; -1 if it runs past the message. */
    private static int skipName(byte[] m, int at, int length) {
        for (int labels = 0; labels < 128 && at < length; labels++) {
            int len = m[at] & 0xFF;
            if (len == 0) return at + 1;
            if ((len & 0xC0) == 0xC0) return at + 2 <= length ? at + 2 : -1;
            if ((len & 0xC0) != 0) return -1;
            at += 1 + len;
        }
        return -1;
    }

    private static int u16(byte[] m, int at) {
        return ((m[at] & 0xFF) << 8) | (m[at + 1] & 0xFF);
    }
}
