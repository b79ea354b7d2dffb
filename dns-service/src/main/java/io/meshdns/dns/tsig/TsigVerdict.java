package io.meshdns.dns.tsig;

import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.TSIG;
import org.xbill.DNS.TSIGRecord;

/**
 * What the TSIG step made of a request (RFC 8945 section 5.2), and how its response is signed (section 5.3).
 * Handlers only ever see {@link Unsigned} or {@link Verified}: the request path answers the others itself.
 */
public sealed interface TsigVerdict {

    /** The metrics label: {@code unsigned}, {@code verified}, {@code formerr}, {@code badkey}, … {@code replayed}. */
    String label();

    /** Adds the response's TSIG as section 5.3 says; a no-op where the response is not signed. Call last. */
    void sign(Message response);

    /** The RCODE the request path answers with; NOERROR for the verdicts a handler gets. */
    int rcode();

    Unsigned UNSIGNED = new Unsigned();

    /** No TSIG record: the handler decides (UPDATE refuses it, AXFR checks its address list). */
    record Unsigned() implements TsigVerdict {
        @Override
        public String label() {
            return "unsigned";
        }

        @Override
        public void sign(Message response) {
        }

        @Override
        public int rcode() {
            return Rcode.NOERROR;
        }
    }

    /** The MAC and time verified with {@code key}, first use of that MAC: every response is signed. */
    record Verified(TSIG key, TSIGRecord request) implements TsigVerdict {
        @Override
        public String label() {
            return "verified";
        }

        @Override
        public void sign(Message response) {
            key.apply(response, Rcode.NOERROR, request);
        }

        @Override
        public int rcode() {
            return Rcode.NOERROR;
        }
    }

    /**
     * The TSIG breaks the message format rules of RFC 8945 (not the last record, more than one, bytes after the
     * message, a MAC longer than the hash or shorter than section 5.2.2.1 allows): FORMERR, unsigned, since
     * nothing about the key can be trusted.
     */
    record Malformed(String why) implements TsigVerdict {
        @Override
        public String label() {
            return "formerr";
        }

        @Override
        public void sign(Message response) {
        }

        @Override
        public int rcode() {
            return Rcode.FORMERR;
        }
    }

    /**
     * NOTAUTH with the TSIG error BADKEY, BADSIG, BADTIME or BADTRUNC. Section 5.3.2: for BADKEY and BADSIG the
     * response carries a TSIG with an empty MAC; for BADTIME and BADTRUNC it is signed (dnsjava's {@code apply}
     * makes that distinction from the error).
     */
    record Failed(int error, TSIG key, TSIGRecord request) implements TsigVerdict {
        @Override
        public String label() {
            return Rcode.TSIGstring(error).toLowerCase(java.util.Locale.ROOT);
        }

        @Override
        public void sign(Message response) {
            key.apply(response, error, request);
        }

        @Override
        public int rcode() {
            return Rcode.NOTAUTH;
        }
    }

    /**
     * A valid MAC already used within its time window: REFUSED, signed. Not BADTIME: the time is right, and
     * BADTIME tells a client its clock is off (carrying ours for it to correct), sending an honest client that
     * merely resent a message after a lost answer after a clock problem it does not have. REFUSED is what RFC 2136
     * answers for a request policy does not allow, and the signature lets the client trust it; it re-signs (a new
     * time, a new MAC) and sends again.
     */
    record Replayed(TSIG key, TSIGRecord request) implements TsigVerdict {
        @Override
        public String label() {
            return "replayed";
        }

        @Override
        public void sign(Message response) {
            key.apply(response, Rcode.NOERROR, request);
        }

        @Override
        public int rcode() {
            return Rcode.REFUSED;
        }
    }
}
