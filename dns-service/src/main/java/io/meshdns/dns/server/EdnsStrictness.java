package io.meshdns.dns.server;

import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * RFC 6891 section 6.1.1 on a parsed request: at most one OPT record, only in the additional section,
 * owned by the root name. A request that breaks any of these is malformed (FORMERR): guessing which
 * OPT the client meant would answer with a payload size or DO bit it did not ask for. Pure; checked
 * once per request right after the parse, before any handler sees it.
 */
public final class EdnsStrictness {
    private EdnsStrictness() {
    }

    /** Why {@code request} breaks the OPT rules, or null when it does not. */
    public static String violation(Message request) {
        int opts = 0;
        for (int section : new int[] {Section.ANSWER, Section.AUTHORITY, Section.ADDITIONAL}) {
            for (Record r : request.getSection(section)) {
                if (r.getType() != Type.OPT) {
                    continue;
                }
                if (section != Section.ADDITIONAL) {
                    return "OPT record in the " + Section.longString(section).toLowerCase(java.util.Locale.ROOT) + " section";
                }
                if (!Name.root.equals(r.getName())) {
                    return "OPT record owned by " + r.getName() + ", not the root";
                }
                if (++opts > 1) {
                    return "more than one OPT record";
                }
            }
        }
        return null;
    }
}
