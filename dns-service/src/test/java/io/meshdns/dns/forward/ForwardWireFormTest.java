package io.meshdns.dns.forward;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.ExtendedFlags;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Opcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.TSIG;
import org.xbill.DNS.TXTRecord;
import org.xbill.DNS.Type;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The forwarder's wire-level shortcuts say exactly what dnsjava would: the upstream query written field by field,
 * the answer read where it lies, its question's case compared on the wire, and the hop-by-hop records dropped with
 * the rest of the additional section kept in order.
 */
class ForwardWireFormTest {
    private static final Name NAME = Name.fromConstantString("WwW.Example.COM.");

    /** The query as dnsjava writes it: what {@link UpstreamWire#upstreamQuery} must equal byte for byte. */
    private static byte[] dnsjavaQuery(Message clientQuery, Record question, int id) {
        Message q = new Message(id);
        q.getHeader().setOpcode(clientQuery.getHeader().getOpcode());
        for (int flag : new int[] {Flags.RD, Flags.CD}) {
            if (clientQuery.getHeader().getFlag(flag)) {
                q.getHeader().setFlag(flag);
            }
        }
        q.addRecord(question, Section.QUESTION);
        OPTRecord clientOpt = clientQuery.getOPT();
        int flags = clientOpt != null ? clientOpt.getFlags() & ExtendedFlags.DO : 0;
        q.addRecord(new OPTRecord(UpstreamWire.UPSTREAM_UDP_PAYLOAD, 0, 0, flags), Section.ADDITIONAL);
        return q.toWire();
    }

    @Test
    void theUpstreamQueryIsWhatDnsjavaWouldWrite() {
        List<Name> names = List.of(Name.root, NAME, Name.fromConstantString("a.b.c.d.e.f.g.h.svc.cluster.local."),
                Name.fromConstantString("\\000\\255.x."));
        for (Name name : names) {
            for (int type : new int[] {Type.A, Type.AAAA, Type.SRV, Type.ANY}) {
                for (int bits = 0; bits < 16; bits++) {
                    Record question = Record.newRecord(name, type, bits % 2 == 0 ? DClass.IN : DClass.CH);
                    Message client = new Message(7);
                    client.getHeader().setOpcode((bits & 8) != 0 ? Opcode.NOTIFY : Opcode.QUERY);
                    if ((bits & 1) != 0) {
                        client.getHeader().setFlag(Flags.RD);
                    }
                    if ((bits & 2) != 0) {
                        client.getHeader().setFlag(Flags.CD);
                    }
                    if ((bits & 4) != 0) {
                        client.addRecord(new OPTRecord(4096, 0, 0, (bits & 1) != 0 ? ExtendedFlags.DO : 0), Section.ADDITIONAL);
                    }
                    client.addRecord(question, Section.QUESTION);
                    int id = 0xFFFF - bits * 977;
                    assertArrayEquals(dnsjavaQuery(client, question, id), UpstreamWire.upstreamQuery(client, question, id),
                            name + " " + Type.string(type) + " bits " + bits);
                }
            }
        }
    }

    private static Message answerTo(Name asked) throws Exception {
        Message m = new Message(0x1234);
        m.getHeader().setFlag(Flags.QR);
        m.addRecord(Record.newRecord(asked, Type.A, DClass.IN), Section.QUESTION);
        m.addRecord(new ARecord(asked, DClass.IN, 60, InetAddress.getByName("192.0.2.1")), Section.ANSWER);
        return m;
    }

    @Test
    void anAnswerIsReadWhereItLiesInTheBuffer() throws Exception {
        byte[] wire = answerTo(NAME).toWire();
        ByteBuffer atOffset = ByteBuffer.allocate(wire.length + 9);
        atOffset.position(9);
        atOffset.put(wire);
        atOffset.position(9);
        Message read = UpstreamWire.parseMatching(atOffset, 0x1234, Record.newRecord(NAME, Type.A, DClass.IN));
        assertNotNull(read, "the answer, its owner compressed against the question");
        assertEquals("192.0.2.1", ((ARecord) read.getSection(Section.ANSWER).get(0)).getAddress().getHostAddress());
    }

    @Test
    void theQuestionsCaseIsComparedOnTheWire() throws Exception {
        Record sent = Record.newRecord(NAME, Type.A, DClass.IN);
        byte[] query = UpstreamWire.upstreamQuery(new Message(), sent, 0x1234);
        byte[] echoed = answerTo(NAME).toWire();
        assertTrue(UpstreamWire.echoesQuestionCase(buffer(echoed), query, new Message(echoed), sent), "the same bytes");

        byte[] lowered = answerTo(Name.fromConstantString("www.example.com.")).toWire();
        assertFalse(UpstreamWire.echoesQuestionCase(buffer(lowered), query, new Message(lowered), sent), "case lost");

        // The name's last bytes past its whole eight-byte words are compared one by one.
        Record longer = Record.newRecord(Name.fromConstantString("a.WwW.Example.COM."), Type.A, DClass.IN);
        byte[] longerQuery = UpstreamWire.upstreamQuery(new Message(), longer, 0x1234);
        byte[] lastLetterLowered = answerTo(Name.fromConstantString("a.WwW.Example.COm.")).toWire();
        assertFalse(UpstreamWire.echoesQuestionCase(buffer(lastLetterLowered), longerQuery, new Message(lastLetterLowered), longer),
                "the last letter's case lost");
        byte[] longerEchoed = answerTo(longer.getName()).toWire();
        assertTrue(UpstreamWire.echoesQuestionCase(buffer(longerEchoed), longerQuery, new Message(longerEchoed), longer));

        ByteBuf shifted = Unpooled.buffer();
        shifted.writeBytes(new byte[5]);
        shifted.writeBytes(echoed);
        shifted.readerIndex(5);
        assertTrue(UpstreamWire.echoesQuestionCase(shifted, query, new Message(echoed), sent), "read from its reader index");
    }

    private static ByteBuf buffer(byte[] wire) {
        return Unpooled.wrappedBuffer(wire);
    }

    @Test
    void hopByHopRecordsLeaveAndTheRestOfTheAdditionalSectionStaysInOrder() throws Exception {
        Message client = new Message(42);
        client.addRecord(Record.newRecord(NAME, Type.A, DClass.IN), Section.QUESTION);
        Message upstream = answerTo(Name.fromConstantString("www.example.com."));
        Record first = new TXTRecord(Name.fromConstantString("one."), DClass.IN, 60, "first");
        Record second = new TXTRecord(Name.fromConstantString("two."), DClass.IN, 60, "second");
        upstream.addRecord(first, Section.ADDITIONAL);
        upstream.addRecord(new OPTRecord(1232, 0, 0), Section.ADDITIONAL);
        upstream.addRecord(second, Section.ADDITIONAL);
        new TSIG(TSIG.HMAC_SHA256, "key.", "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0").apply(upstream, null);

        Message relayed = Responses.toClient(upstream, client);

        assertEquals(List.of(first, second), relayed.getSection(Section.ADDITIONAL));
        assertEquals(42, relayed.getHeader().getID());
        assertEquals(NAME.toString(), relayed.getQuestion().getName().toString(), "the client's own case");
        assertEquals(2, relayed.getHeader().getCount(Section.ADDITIONAL));
    }
}
