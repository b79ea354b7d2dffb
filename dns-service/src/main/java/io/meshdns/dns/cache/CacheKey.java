package io.meshdns.dns.cache;

import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Record;

/**
 * What makes two queries share a cached answer. {@link Name#equals} and {@link Name#hashCode} are
 * case-insensitive, so {@code WwW.Example.} and {@code www.example.} share one entry; the hit then
 * echoes each query's own case. DO and CD are part of the key because they change the answer's
 * content (RRSIGs, unvalidated data).
 */
public record CacheKey(Name name, int type, int dclass, boolean dnssecOk, boolean checkingDisabled) {

    public static CacheKey of(Message query) {
        Record q = query.getQuestion();
        OPTRecord opt = query.getOPT();
        boolean dnssecOk = opt != null && (opt.getFlags() & org.xbill.DNS.ExtendedFlags.DO) != 0;
        return new CacheKey(q.getName(), q.getType(), q.getDClass(), dnssecOk,
                query.getHeader().getFlag(Flags.CD));
    }
}
