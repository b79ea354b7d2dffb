package io.meshdns.dns.server;

import io.meshdns.dns.answer.ClientInfo;
import org.jboss.logging.Logger;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Header;
import org.xbill.DNS.Message;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Type;

import java.util.Locale;

/**
 * One line per query on logger {@code meshdns.querylog}, in the format of CoreDNS's log plugin:
 * <pre>127.0.0.1:46613 - 25811 "A IN example.org. udp 29 false 512" NOERROR qr,aa,rd 80 0.000122s</pre>
 * (remote, id, "type class name proto request-size do bufsize", rcode, response flags, response size,
 * duration). Only built when meshdns.dns.query-log=true.
 */
final class QueryLog {
    private static final Logger LOG = Logger.getLogger("meshdns.querylog");

    static void log(ClientInfo client, Message query, int requestSize, Message response, int responseSize, long nanos) {
        Record q = query.getQuestion();
        OPTRecord opt = query.getOPT();
        boolean dnssecOk = opt != null && (opt.getFlags() & 0x8000) != 0;
        int bufsize = opt != null ? opt.getPayloadSize() : 512;
        String remote = client.ipv6() ? "[" + client.address() + "]" : client.address();
        LOG.infof("%s:%d - %d \"%s %s %s %s %d %b %d\" %s %s %d %.6fs", remote, client.port(),
                query.getHeader().getID(), q == null ? "-" : Type.string(q.getType()),
                q == null ? "-" : DClass.string(q.getDClass()), q == null ? "-" : q.getName(),
                client.transport().label(), requestSize, dnssecOk, bufsize,
                Rcode.string(response.getRcode()), flags(response.getHeader()), responseSize, nanos / 1e9);
    }

    private static String flags(Header h) {
        StringBuilder sb = new StringBuilder();
        for (int flag : new int[] {Flags.QR, Flags.AA, Flags.TC, Flags.RD, Flags.RA, Flags.AD, Flags.CD}) {
            if (h.getFlag(flag)) {
                if (sb.length() > 0) {
                    sb.append(',');
                }
                sb.append(Flags.string(flag).toLowerCase(Locale.ROOT));
            }
        }
        return sb.toString();
    }

    private QueryLog() {
    }
}
