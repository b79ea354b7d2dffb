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
        dropHopByHop(upstream);
        upstream.removeAllRecords(Section.QUESTION);
        upstream.addRecord(query.getQuestion(), Section.QUESTION);
        return upstream;
    }

    /**
     * Removes OPT and TSIG from the additional section, keeping the rest in order. The section is rebuilt rather
     * than the two removed one by one: dnsjava's removal compares records by their canonical wire form, an
     * encode per forwarded query.
     */
    private static void dropHopByHop(Message upstream) {
        if (upstream.getHeader().getCount(Section.ADDITIONAL) == 0) {
            return;
        }
        List<Record> additional = upstream.getSection(Section.ADDITIONAL);
        List<Record> kept = null;
        for (int i = 0; i < additional.size(); i++) {
            Record r = additional.get(i);
            boolean hopByHop = r.getType() == Type.OPT || r.getType() == Type.TSIG;
            if (hopByHop && kept == null) {
                kept = new ArrayList<>(additional.subList(0, i));
            } else if (!hopByHop && kept != null) {
                kept.add(r);
            }
        }
        if (kept == null) {
            return;
        }
        upstream.removeAllRecords(Section.ADDITIONAL);
        for (Record r : kept) {
            upstream.addRecord(r, Section.ADDITIONAL);
        }
    }

    private static void copyQueryFlags(Message query, Message response) {
        copyFlag(query, response, Flags.RD);
        copyFlag(query, response, Flags.CD);
    }

    private static void copyFlag(Message query, Message response, int flag) {
        if (query.getHeader().getFlag(flag)) {
            response.getHeader().setFlag(flag);
        } else {
            response.getHeader().unsetFlag(flag);
        }
    }
}
