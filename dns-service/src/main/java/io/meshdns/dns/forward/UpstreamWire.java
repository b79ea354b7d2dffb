package io.meshdns.dns.forward;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import io.netty.buffer.ByteBuf;
import org.xbill.DNS.DNSOutput;
import org.xbill.DNS.ExtendedFlags;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Header;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * The wire side of one upstream exchange, the same for UDP, TCP and TLS: the query we send (the client's question and
 * RD/CD, our ID and EDNS) and the checks an answer must pass (a QUERY reply with our ID and question, that we can
 * relay, echoing the question's letter case). Pure: the sockets are {@link UdpSocketPool}'s and
 * {@link StreamConnections}'.
 *
 * <p>Runs once per forwarded query, so it avoids dnsjava's object-heavy paths where the bytes say as much
 * ({@code ForwardWireFormTest} holds each shortcut to what dnsjava would say).
 */
final class UpstreamWire {
    /** EDNS0 payload we advertise upstream (DNS flag day 2020). */
    static final int UPSTREAM_UDP_PAYLOAD = 1232;

    private UpstreamWire() {
    }

    /** Wire form of the query we send upstream: the client's question and RD/CD, our ID and EDNS. */
    static byte[] upstreamQuery(Message clientQuery, int id) {
        return upstreamQuery(clientQuery, clientQuery.getQuestion(), id);
    }

    /**
     * Written field by field rather than through a dnsjava {@link Message}: this runs once per forwarded query, and
     * the message, its sections, the compression table and the growing output buffer were a tenth of the bytes a
     * forwarded query allocated. {@code UpstreamQueryWireTest} holds it to the bytes dnsjava writes.
     */
    static byte[] upstreamQuery(Message clientQuery, Record question, int id) {
        Name name = question.getName();
        Header clientHeader = clientQuery.getHeader();
        int flags = clientHeader.getOpcode() << 11;
        if (clientHeader.getFlag(Flags.RD)) {
            flags |= 1 << (15 - Flags.RD);
        }
        if (clientHeader.getFlag(Flags.CD)) {
            flags |= 1 << (15 - Flags.CD);
        }
        // getOPT copies the additional section to look: skipped when the query has none.
        OPTRecord clientOpt = clientHeader.getCount(Section.ADDITIONAL) == 0 ? null : clientQuery.getOPT();
        int extendedFlags = clientOpt != null ? clientOpt.getFlags() & ExtendedFlags.DO : 0;
        DNSOutput out = new DNSOutput(HEADER_BYTES + name.length() + QUESTION_FIXED_BYTES + OPT_BYTES);
        out.writeU16(id);
        out.writeU16(flags);
        out.writeU16(1); // QDCOUNT
        out.writeU16(0); // ANCOUNT
        out.writeU16(0); // NSCOUNT
        out.writeU16(1); // ARCOUNT: our OPT
        name.toWire(out, null);
        out.writeU16(question.getType());
        out.writeU16(question.getDClass());
        out.writeU8(0); // OPT owner: the root
        out.writeU16(Type.OPT);
        out.writeU16(UPSTREAM_UDP_PAYLOAD); // OPT's class: our UDP payload size
        out.writeU8(0); // extended RCODE
        out.writeU8(0); // EDNS version
        out.writeU16(extendedFlags);
        out.writeU16(0); // no options
        return out.toByteArray();
    }

    private static final int HEADER_BYTES = 12;
    private static final int QUESTION_FIXED_BYTES = 4;
    private static final int OPT_BYTES = 11;

    /** The opcode's four bits in the header's third byte. */
    private static final int OPCODE_BITS = 0x78;

    /** The response if it is a QUERY reply whose ID and question match what we asked, else null. */
    static Message parseMatching(byte[] bytes, int id, Record question) {
        return parseMatching(ByteBuffer.wrap(bytes), id, question);
    }

    /** As {@link #parseMatching(byte[], int, Record)}, reading the datagram where it lies (no copy). */
    static Message parseMatching(ByteBuffer bytes, int id, Record question) {
        int at = bytes.position();
        if (bytes.remaining() < HEADER_BYTES || (bytes.getShort(at) & 0xFFFF) != id) {
            return null;
        }
        if ((bytes.get(at + 2) & OPCODE_BITS) != 0) {
            // Not a QUERY reply (RFC 1035 4.1.1: a reply copies the query's opcode). Read as one anyway it would
            // differ from what we relay: an UPDATE may carry empty rdata that a QUERY reply cannot (UpstreamResponseFuzz).
            return null;
        }
        Message response;
        try {
            response = new Message(bytes);
        } catch (IOException e) {
            return null;
        }
        Record q = response.getQuestion();
        if (!response.getHeader().getFlag(Flags.QR) || q == null || q.getType() != question.getType()
                || q.getDClass() != question.getDClass() || !q.getName().equals(question.getName())) {
            return null;
        }
        return canBeWrittenBack(response) ? response : null;
    }

    /**
     * Whether every record we would relay can be written back: dnsjava reads some records it cannot write (a WKS
     * with an empty bitmap, found by UpstreamResponseFuzz), which would fail every later step, so an answer we cannot
     * relay is no answer. Only records outside {@link #ROUND_TRIP_TYPES} are written to find out (writing the whole
     * answer for every query was an eighth of what a forwarded query allocated); OPT and TSIG are hop-by-hop and are
     * never relayed ({@link Responses#toClient}).
     */
    static boolean canBeWrittenBack(Message response) {
        for (int section = Section.ANSWER; section <= Section.ADDITIONAL; section++) {
            if (response.getHeader().getCount(section) == 0) {
                continue;
            }
            for (Record r : response.getSection(section)) {
                int type = r.getType();
                if (roundTrips(type) || type == Type.OPT || type == Type.TSIG) {
                    continue;
                }
                try {
                    r.toWire(section);
                } catch (RuntimeException e) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * Types whose every readable form can be written back: fixed fields, names and length-prefixed strings, each
     * kept by dnsjava exactly as read. Anything else is written once to find out.
     */
    private static boolean roundTrips(int type) {
        return switch (type) {
            case Type.A, Type.AAAA, Type.NS, Type.CNAME, Type.DNAME, Type.PTR, Type.MX, Type.SRV, Type.SOA, Type.TXT -> true;
            default -> false;
        };
    }

    /** Eight bytes of an array as the big-endian long {@link ByteBuf#getLong} reads. */
    private static final VarHandle BIG_ENDIAN_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    /** Where the question's name starts in a DNS message: right after the header. */
    private static final int QUESTION_OFFSET = 12;

    /**
     * Whether the answer echoes the question's name byte for byte, letter case included, as it was sent. Compared on
     * the wire so that the common case costs no allocation; a name that differs in its bytes (another case, or a
     * pointer where we wrote labels) is compared as text, as dnsjava reads it.
     */
    static boolean echoesQuestionCase(ByteBuf answer, byte[] sent, Message parsed, Record question) {
        // The name we sent is plain labels; an answer whose bytes there are the same carries the very same name.
        int nameEnd = QUESTION_OFFSET + question.getName().length();
        if (nameEnd <= sent.length && nameEnd <= answer.readableBytes()) {
            int base = answer.readerIndex();
            int i = QUESTION_OFFSET;
            boolean same = true;
            // Eight bytes a read where the name is long enough: each ByteBuf read checks the buffer's bounds and life.
            for (; i + Long.BYTES <= nameEnd && same; i += Long.BYTES) {
                same = answer.getLong(base + i) == (long) BIG_ENDIAN_LONG.get(sent, i);
            }
            for (; i < nameEnd && same; i++) {
                same = sent[i] == answer.getByte(base + i);
            }
            if (same) {
                return true;
            }
        }
        return parsed.getQuestion().getName().toString().equals(question.getName().toString());
    }
}
