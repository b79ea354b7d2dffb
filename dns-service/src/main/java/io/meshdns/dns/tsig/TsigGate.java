package io.meshdns.dns.tsig;

import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.TSIG;
import org.xbill.DNS.TSIGRecord;

import java.time.Instant;

/**
 * The TSIG step of a request, in RFC 8945 section 5.2's order: format (FORMERR), key (BADKEY), MAC (BADSIG;
 * dnsjava 3.7 hashes the Original ID as section 4.3.2 says, so a header ID rewritten by a forwarder verifies),
 * time (BADTIME), truncation policy (BADTRUNC), then the replay check. Returns a {@link TsigVerdict}, never throws:
 * anything unexpected while reading the TSIG is FORMERR. Holds the replay cache, so one instance serves the process.
 */
public final class TsigGate {
    private final TsigKeyring keys;
    private final ReplayCache replays;

    public TsigGate(TsigKeyring keys) {
        this(keys, new ReplayCache());
    }

    public TsigGate(TsigKeyring keys, ReplayCache replays) {
        this.keys = keys;
        this.replays = replays;
    }

    public TsigKeyring keys() {
        return keys;
    }

    public ReplayCache replays() {
        return replays;
    }

    /** The verdict on {@code request}, parsed from exactly {@code wire}. */
    public TsigVerdict check(Message request, byte[] wire) {
        try {
            return checkOrThrow(request, wire);
        } catch (RuntimeException e) {
            // The parser forgave something the TSIG code did not: the message is not well formed.
            return new TsigVerdict.Malformed("unreadable TSIG: " + e.getClass().getSimpleName());
        }
    }

    private TsigVerdict checkOrThrow(Message request, byte[] wire) {
        MessageLayout layout = MessageLayout.of(wire);
        TSIGRecord tsig = request.getTSIG();
        if (tsig == null) {
            if (layout != null && layout.tsigRecords() > 0) {
                return new TsigVerdict.Malformed("a TSIG record that is not the last one");
            }
            return TsigVerdict.UNSIGNED;
        }
        if (layout == null) {
            return new TsigVerdict.Malformed("the counts claim more records than the message holds");
        }
        if (layout.end() != wire.length) {
            return new TsigVerdict.Malformed((wire.length - layout.end()) + " bytes after the signed message");
        }
        if (layout.tsigRecords() != 1 || layout.lastRecordType() != org.xbill.DNS.Type.TSIG) {
            return new TsigVerdict.Malformed("more than one TSIG record, or one that is not last");
        }
        // RFC 8945 section 4.2: CLASS MUST be ANY and TTL MUST be 0. Checked on the bytes: the parser reads a TTL
        // with its top bit set as 0, and the MAC is computed over the parsed value (found by TsigFuzz).
        if (layout.lastRecordClass() != org.xbill.DNS.DClass.ANY || layout.lastRecordTtl() != 0) {
            return new TsigVerdict.Malformed("a TSIG record with class " + layout.lastRecordClass() + " and TTL "
                    + layout.lastRecordTtl() + " (must be ANY and 0)");
        }
        TsigKeyring.Entry entry = keys.entry(tsig.getName());
        if (entry == null || !entry.algorithm().equals(tsig.getAlgorithm())) {
            return new TsigVerdict.Failed(Rcode.BADKEY, errorKey(tsig), tsig);
        }
        TSIG key = entry.key();
        int macLength = tsig.getSignature().length;
        // Section 5.2.2.1: longer than the hash, or shorter than the larger of 10 octets and half the hash, "MUST
        // cause the DNS message to be dropped and RCODE 1 (FORMERR) to be returned".
        if (macLength > entry.macLength() || macLength < Math.max(10, entry.macLength() / 2)) {
            return new TsigVerdict.Malformed("a MAC of " + macLength + " bytes for a " + entry.macLength() + "-byte hash");
        }
        int error = key.verify(request, wire, null);
        if (error != Rcode.NOERROR) {
            return new TsigVerdict.Failed(error, key, tsig);
        }
        // Section 5.2.4, after the MAC and the time: a truncation the RFC permits but local policy does not.
        if (macLength < entry.macLength() && !keys.allowTruncatedMac()) {
            return new TsigVerdict.Failed(Rcode.BADTRUNC, key, tsig);
        }
        Instant now = keys.clock().instant();
        Instant expires = tsig.getTimeSigned().plus(tsig.getFudge()).plusSeconds(1);
        if (!replays.firstUse(tsig.getName(), tsig.getSignature(), now, expires)) {
            return new TsigVerdict.Replayed(key, tsig);
        }
        return new TsigVerdict.Verified(key, tsig);
    }

    /** For an unknown key, a key object with the request's name and algorithm, only to carry the error. */
    private static TSIG errorKey(TSIGRecord tsig) {
        Name algorithm = tsig.getAlgorithm();
        try {
            return new TSIG(algorithm, tsig.getName(), new byte[] {0});
        } catch (IllegalArgumentException unknownAlgorithm) {
            return new TSIG(TSIG.HMAC_SHA256, tsig.getName(), new byte[] {0});
        }
    }
}
