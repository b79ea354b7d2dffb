package io.meshdns.dns.dynamic;

import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.TSIG;
import org.xbill.DNS.TSIGRecord;

/**
 * RFC 8945 section 5.2 on a request: unsigned, signed with a good key, or failed (BADKEY, BADSIG,
 * BADTIME). {@link #sign} then produces the matching response TSIG: a full signature when the
 * request verified (or BADTIME), an empty MAC carrying the error for BADKEY and BADSIG (5.3.2).
 */
public record TsigCheck(Status status, TSIG key, TSIGRecord requestTsig, int error) {

    public enum Status { UNSIGNED, VERIFIED, FAILED }

    public static TsigCheck of(TsigKeyring keys, Message request, byte[] wire) {
        TSIGRecord tsig = request.getTSIG();
        if (tsig == null) {
            return new TsigCheck(Status.UNSIGNED, null, null, Rcode.NOERROR);
        }
        TSIG key = keys.get(tsig.getName());
        if (key == null) {
            return new TsigCheck(Status.FAILED, errorKey(tsig), tsig, Rcode.BADKEY);
        }
        int error = key.verify(request, wire, null);
        if (error != Rcode.NOERROR) {
            return new TsigCheck(Status.FAILED, key, tsig, error);
        }
        return new TsigCheck(Status.VERIFIED, key, tsig, Rcode.NOERROR);
    }

    /** Adds the response TSIG (RFC 8945 5.3); a no-op for an unsigned request. Call last. */
    public void sign(Message response) {
        if (status == Status.UNSIGNED) {
            return;
        }
        key.apply(response, error, requestTsig);
    }

    /** For an unknown key, a key object with the request's name and algorithm, only to carry the error. */
    private static TSIG errorKey(TSIGRecord tsig) {
        try {
            return new TSIG(tsig.getAlgorithm(), tsig.getName(), new byte[] {0});
        } catch (IllegalArgumentException unknownAlgorithm) {
            return new TSIG(TSIG.HMAC_SHA256, tsig.getName(), new byte[] {0});
        }
    }
}
