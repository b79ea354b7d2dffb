package io.meshdns.dns.server;

import io.meshdns.dns.answer.Transport;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Header;
import org.xbill.DNS.Message;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;

/**
 * Turns a response into wire bytes that fit the client's limit (pure). dnsjava compresses names in
 * every message it writes. Over UDP the limit is 512 without EDNS, otherwise the client's advertised
 * size clamped to [512, meshdns.dns.edns.max-udp-payload] (RFC 6891). Too big: first drop the
 * additional section (glue is optional), then fall back to header + question + OPT with TC set, so
 * the client retries over TCP (RFC 7766, RFC 2181 section 9).
 */
public final class ResponseEncoder {
    static final int MAX_TCP_MESSAGE = 65535;
    private static final int NO_EDNS_LIMIT = 512;
    private static final int[] HEADER_FLAGS = {Flags.QR, Flags.AA, Flags.TC, Flags.RD, Flags.RA, Flags.AD, Flags.CD};

    private final int maxUdpPayload;

    public ResponseEncoder(int maxUdpPayload) {
        this.maxUdpPayload = maxUdpPayload;
    }

    /** The largest response this query's client accepts over {@code transport}. */
    public int limitFor(Message query, Transport transport) {
        if (transport == Transport.TCP) {
            return MAX_TCP_MESSAGE;
        }
        OPTRecord opt = query == null ? null : query.getOPT();
        return udpLimit(opt == null ? -1 : opt.getPayloadSize());
    }

    /**
     * The largest UDP response for a client that advertised {@code payload} in its OPT, or sent no OPT
     * ({@code payload} negative): 512 without EDNS, else the advertised size within [512, our maximum].
     */
    public int udpLimit(int payload) {
        if (payload < 0) {
            return NO_EDNS_LIMIT;
        }
        return Math.max(ServerSettings.MIN_UDP_PAYLOAD, Math.min(payload, maxUdpPayload));
    }

    public byte[] encode(Message response, int limit) {
        byte[] wire = response.toWire();
        if (wire.length <= limit) {
            return wire;
        }
        Message withoutAdditional = copyWithout(response, false);
        wire = withoutAdditional.toWire();
        if (wire.length <= limit) {
            return wire;
        }
        Message truncated = copyWithout(response, true);
        truncated.getHeader().setFlag(Flags.TC);
        return truncated.toWire();
    }

    /** A copy keeping the question and OPT; keeps answer and authority unless {@code dropAll}. */
    private static Message copyWithout(Message response, boolean dropAll) {
        Header from = response.getHeader();
        Message copy = new Message(from.getID());
        Header to = copy.getHeader();
        to.setOpcode(from.getOpcode());
        to.setRcode(from.getRcode());
        for (int flag : HEADER_FLAGS) {
            if (from.getFlag(flag)) {
                to.setFlag(flag);
            }
        }
        for (Record r : response.getSection(Section.QUESTION)) {
            copy.addRecord(r, Section.QUESTION);
        }
        if (!dropAll) {
            for (int section : new int[] {Section.ANSWER, Section.AUTHORITY}) {
                for (Record r : response.getSection(section)) {
                    copy.addRecord(r, section);
                }
            }
        }
        OPTRecord opt = response.getOPT();
        if (opt != null) {
            copy.addRecord(opt, Section.ADDITIONAL);
        }
        return copy;
    }
}
