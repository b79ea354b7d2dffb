package io.meshdns.dns.dynamic;

import org.xbill.DNS.DClass;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Type;

import java.io.IOException;
import java.util.Arrays;

/**
 * How one record is written in the journal and read back: dnsjava's one-line presentation form
 * (name, TTL, class, type, RDATA). The UPDATE path calls {@link #storable} before it acknowledges
 * anything, so a record the journal could not replay is refused at the door instead of stopping a
 * later restart: the check is the replay itself, not a second opinion about it.
 */
public final class JournalCodec {
    /** RFC 2181 section 8: a TTL is an unsigned 31-bit number. */
    public static final long MAX_TTL = 0x7FFFFFFFL;

    private JournalCodec() {
    }

    /** The journal line body of {@code r} (without the {@code +}/{@code -} marker). */
    public static String encode(Record r) {
        return r.toString();
    }

    /** Parses a line body written by {@link #encode}. */
    public static Record decode(String text, Name origin) throws IOException {
        String[] f = text.split("\\s+", 5);
        if (f.length < 4) {
            throw new IOException("not a record: " + text);
        }
        Name name = Name.fromString(f[0], Name.root);
        long ttl;
        try {
            ttl = Long.parseLong(f[1]);
        } catch (NumberFormatException e) {
            throw new IOException("bad TTL: " + text);
        }
        int dclass = DClass.value(f[2]);
        int type = Type.value(f[3]);
        if (dclass < 0 || type < 0) {
            throw new IOException("bad class or type: " + text);
        }
        return Record.fromString(name, type, dclass, ttl, f.length == 5 ? f[4] : "", origin);
    }

    /**
     * Null when {@code r} is written and read back unchanged (owner, type, class, TTL and RDATA bytes);
     * otherwise why not, in a few words for the log.
     */
    public static String storable(Record r, Name origin) {
        if (r.getTTL() < 0 || r.getTTL() > MAX_TTL) {
            return "TTL " + r.getTTL() + " is above 2^31-1 (RFC 2181 section 8)";
        }
        try {
            Record back = decode(encode(r), origin);
            if (back.getType() != r.getType() || back.getDClass() != r.getDClass() || back.getTTL() != r.getTTL()
                    || !back.getName().equals(r.getName())
                    || !Arrays.equals(back.rdataToWireCanonical(), r.rdataToWireCanonical())) {
                return "does not read back as written (" + back + ")";
            }
            return null;
        } catch (IOException | RuntimeException e) {
            return "cannot be journaled: " + e;
        }
    }
}
