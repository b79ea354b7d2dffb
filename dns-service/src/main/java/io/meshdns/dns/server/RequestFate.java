package io.meshdns.dns.server;

import io.meshdns.dns.answer.ClientInfo;
import io.meshdns.dns.answer.QueryContext;
import io.meshdns.dns.answer.Transport;
import io.meshdns.dns.snapshot.Snapshot;
import io.meshdns.dns.tsig.TsigGate;
import io.meshdns.dns.tsig.TsigVerdict;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Header;
import org.xbill.DNS.Message;
import org.xbill.DNS.Opcode;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * What becomes of one request, decided in one place and in this order: parse (too short or a response: dropped;
 * does not parse: a bare FORMERR; parses but holds fewer records than its header counts, as a message with TC=1 cut
 * short does, or breaks RFC 6891's OPT rules: FORMERR), then the TSIG step with its replay check for the requests
 * that authenticate (UPDATE, NOTIFY, AXFR/IXFR over TCP: a bad TSIG is answered here, see {@link TsigVerdict}), then
 * the handler (a zone transfer, the opcode's handler, or NOTIMP). Pure: reads the request and the routes, runs
 * nothing; {@link RequestProcessor} carries the fate out and is the one place that catches what a handler throws.
 */
sealed interface RequestFate {

    /** The handlers and the TSIG step, fixed at start. {@code transfers} and {@code tsig} may be null. */
    record Routes(RequestHandler[] byOpcode, ZoneTransferHandler transfers, TsigGate tsig) {
    }

    /** Not answered: shorter than a header, or a response (QR=1: answering it could start a loop). */
    record Dropped() implements RequestFate {
    }

    /** Did not parse: FORMERR as a bare header, never larger than the request. */
    record Unparsed(byte[] formerr) implements RequestFate {
    }

    /** Answered here, without a handler; {@code malformed}: the message itself was at fault (counted as such). */
    record Answered(QueryContext ctx, RequestHandler.Reply reply, boolean malformed) implements RequestFate {
    }

    record Handled(QueryContext ctx, RequestHandler handler) implements RequestFate {
    }

    /** AXFR or IXFR over TCP, to the zone transfer handler. */
    record Transferred(QueryContext ctx, ZoneTransferHandler transfer) implements RequestFate {
    }

    String NO_ZONE = ".";

    static RequestFate decide(byte[] packet, ClientInfo client, Snapshot snapshot, Routes routes) {
        if (packet.length < Header.LENGTH || (packet[2] & 0x80) != 0) {
            return new Dropped();
        }
        Message query;
        try {
            query = new Message(packet);
        } catch (Exception e) { // dnsjava throws WireParseException and, for some garbage, runtime exceptions
            return new Unparsed(formErr(packet));
        }
        if (!complete(packet, query) || EdnsStrictness.violation(query) != null) {
            return new Answered(new QueryContext(snapshot, client, query), formErr(query), true);
        }
        int opcode = query.getHeader().getOpcode();
        Record question = query.getQuestion();
        boolean transfer = client.transport() == Transport.TCP && opcode == Opcode.QUERY && question != null
                && (question.getType() == Type.AXFR || question.getType() == Type.IXFR) && routes.transfers() != null;
        TsigVerdict verdict = TsigVerdict.UNSIGNED;
        if (routes.tsig() != null && (transfer || opcode == Opcode.UPDATE || opcode == Opcode.NOTIFY)) {
            verdict = routes.tsig().check(query, packet);
        }
        QueryContext ctx = new QueryContext(snapshot, client, query, verdict);
        if (!(verdict instanceof TsigVerdict.Unsigned) && !(verdict instanceof TsigVerdict.Verified)) {
            return new Answered(ctx, refusal(query, verdict), verdict instanceof TsigVerdict.Malformed);
        }
        if (transfer) {
            return new Transferred(ctx, routes.transfers());
        }
        RequestHandler handler = routes.byOpcode()[opcode];
        if (handler == null) {
            return new Answered(ctx, refusal(query, Rcode.NOTIMP, verdict), false);
        }
        return new Handled(ctx, handler);
    }

    /**
     * Every section holds as many records as the header counts. A parser forgives a message with TC=1 that is cut
     * short and keeps what it could read; such a request is incomplete (and its TSIG, if any, is missing).
     */
    private static boolean complete(byte[] packet, Message query) {
        for (int section = 0; section < 4; section++) {
            int counted = ((packet[4 + 2 * section] & 0xFF) << 8) | (packet[5 + 2 * section] & 0xFF);
            if (query.getSection(section).size() != counted) {
                return false;
            }
        }
        return true;
    }

    private static RequestHandler.Reply refusal(Message query, TsigVerdict verdict) {
        return refusal(query, verdict.rcode(), verdict);
    }

    /** {@code rcode} with the request's ID, opcode and first section (question or zone), signed as the verdict says. */
    private static RequestHandler.Reply refusal(Message query, int rcode, TsigVerdict verdict) {
        Message m = new Message(query.getHeader().getID());
        m.getHeader().setFlag(Flags.QR);
        m.getHeader().setOpcode(query.getHeader().getOpcode());
        m.getHeader().setRcode(rcode);
        if (query.getQuestion() != null) {
            m.addRecord(query.getQuestion(), Section.QUESTION);
        }
        verdict.sign(m);
        return new RequestHandler.Reply(m, NO_ZONE);
    }

    /** FORMERR echoing the ID, opcode, RD and question, without OPT: the request's EDNS could not be trusted. */
    static RequestHandler.Reply formErr(Message query) {
        Message m = new Message(query.getHeader().getID());
        m.getHeader().setFlag(Flags.QR);
        m.getHeader().setOpcode(query.getHeader().getOpcode());
        if (query.getHeader().getFlag(Flags.RD)) {
            m.getHeader().setFlag(Flags.RD);
        }
        m.getHeader().setRcode(Rcode.FORMERR);
        if (query.getQuestion() != null) {
            m.addRecord(query.getQuestion(), Section.QUESTION);
        }
        return new RequestHandler.Reply(m, NO_ZONE);
    }

    /** FORMERR as a bare header: the query's ID, opcode and RD, QR set, all counts zero. */
    static byte[] formErr(byte[] packet) {
        byte[] r = new byte[Header.LENGTH];
        r[0] = packet[0];
        r[1] = packet[1];
        r[2] = (byte) (0x80 | (packet[2] & 0x79)); // QR + opcode + RD
        r[3] = (byte) Rcode.FORMERR;
        return r;
    }
}
