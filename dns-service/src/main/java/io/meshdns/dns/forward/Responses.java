package io.meshdns.dns.forward;

import java.util.ArrayList;
import java.util.List;

import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/** Builders for the responses the forwarder hands back. Pure. */
final class Responses {
    private Responses() {
    }

    /** An empty response with {@code rcode}, echoing the query's ID, question and RD/CD bits. */
    static Message error(Message query, int rcode) {
        Message r = new Message(query.getHeader().getID());
        r.getHeader().setFlag(Flags.QR);
        r.getHeader().setFlag(Flags.RA);
        r.getHeader().setOpcode(query.getHeader().getOpcode());
        copyQueryFlags(query, r);
        r.getHeader().setRcode(rcode);
        if (query.getQuestion() != null) {
            r.addRecord(query.getQuestion(), Section.QUESTION);
        }
        return r;
    }

    /**
     * Turns an upstream response into ours, in place: the client's ID, question (its exact case) and
     * RD/CD bits, RA set and AA cleared; no OPT or TSIG, which are hop-by-hop (the listener adds its own OPT).
     */
    static Message toClient(Message upstream, Message query) {
        upstream.getHeader().setID(query.getHeader().getID());
        // We are the client's recursive resolver: recursion is available, and the data is not ours.
        upstream.getHeader().unsetFlag(Flags.AA);
        upstream.getHeader().setFlag(Flags.RA);
        copyQueryFlags(query, upstream);
        List<Record> hopByHop = new ArrayList<>(1);
        for (Record r : upstream.getSection(Section.ADDITIONAL)) {
            if (r.getType() == Type.OPT || r.getType() == Type.TSIG) {
                hopByHop.add(r);
            }
        }
        for (Record r : hopByHop) {
            upstream.removeRecord(r, Section.ADDITIONAL);
        }
        upstream.removeAllRecords(Section.QUESTION);
        upstream.addRecord(query.getQuestion(), Section.QUESTION);
        return upstream;
    }

    private static void copyQueryFlags(Message query, Message response) {
        for (int flag : new int[] {Flags.RD, Flags.CD}) {
            if (query.getHeader().getFlag(flag)) {
                response.getHeader().setFlag(flag);
            } else {
                response.getHeader().unsetFlag(flag);
            }
        }
    }
}
