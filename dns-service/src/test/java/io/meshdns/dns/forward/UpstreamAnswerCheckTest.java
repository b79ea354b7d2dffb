package io.meshdns.dns.forward;

import org.junit.jupiter.api.Test;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * An upstream answer we cannot write back to the client is dropped where it is read, as if it never came: found by
 * UpstreamResponseFuzz, a WKS record with an empty service bitmap parses but throws in every later step (the cache,
 * the client's wire form), which answered SERVFAIL and counted a panic.
 */
class UpstreamAnswerCheckTest {
    private static final Name NAME = Name.fromConstantString("www.example.com.");

    private static byte[] answer(int rdataType, byte[] rdata) {
        return answer(0x8180, rdataType, rdata);
    }

    private static byte[] answer(int flags, int rdataType, byte[] rdata) {
        return answer(flags, Section.ANSWER, rdataType, rdata);
    }

    /** A reply to www.example.com/A whose one record, in {@code section}, is of {@code rdataType}. */
    private static byte[] answer(int flags, int section, int rdataType, byte[] rdata) {
        ByteBuffer b = ByteBuffer.allocate(512);
        b.putShort((short) 0x1234).putShort((short) flags).putShort((short) 1);
        for (int s = Section.ANSWER; s <= Section.ADDITIONAL; s++) {
            b.putShort((short) (s == section ? 1 : 0));
        }
        b.put(NAME.toWire()).putShort((short) Type.A).putShort((short) DClass.IN);
        b.put(NAME.toWire()).putShort((short) rdataType).putShort((short) DClass.IN).putInt(60).putShort((short) rdata.length).put(rdata);
        byte[] wire = new byte[b.position()];
        b.flip();
        b.get(wire);
        return wire;
    }

    @Test
    void anAnswerThatCannotBeWrittenBackIsDropped() {
        Record question = Record.newRecord(NAME, Type.A, DClass.IN);
        assertNull(UpstreamWire.parseMatching(answer(Type.WKS, new byte[]{1, 2, 3, 4, 6}), 0x1234, question), "WKS, empty bitmap");
        assertNotNull(UpstreamWire.parseMatching(answer(Type.A, new byte[]{1, 2, 3, 4}), 0x1234, question), "a plain A is kept");
        for (int section : new int[]{Section.AUTHORITY, Section.ADDITIONAL}) {
            assertNull(UpstreamWire.parseMatching(answer(0x8180, section, Type.WKS, new byte[]{1, 2, 3, 4, 6}), 0x1234, question),
                    "WKS, empty bitmap, in section " + section);
        }
        assertNotNull(UpstreamWire.parseMatching(answer(0x8180, Section.ADDITIONAL, Type.WKS, new byte[]{1, 2, 3, 4, 6, 1}),
                0x1234, question), "a WKS with a service is kept");
    }

    /**
     * A reply must carry the opcode of the query (RFC 1035 4.1.1). Found by UpstreamResponseFuzz: an UPDATE-opcode
     * reply with an empty SVCB record (empty rdata is legal in UPDATE, not in QUERY) was cached, and the cached bytes,
     * replayed as a QUERY reply, no longer parsed.
     */
    @Test
    void aReplyWithAnotherOpcodeIsDropped() {
        Record question = Record.newRecord(NAME, Type.A, DClass.IN);
        int update = 0x8000 | (5 << 11) | 0x0080;
        assertNull(UpstreamWire.parseMatching(answer(update, Type.SVCB, new byte[0]), 0x1234, question), "UPDATE, empty SVCB");
        assertNull(UpstreamWire.parseMatching(answer(update, Type.A, new byte[]{1, 2, 3, 4}), 0x1234, question), "UPDATE, A");
        assertNull(UpstreamWire.parseMatching(answer(0x8000 | (2 << 11), Type.A, new byte[]{1, 2, 3, 4}), 0x1234, question),
                "STATUS");
    }
}
