package io.meshdns.dns.forward;

import org.junit.jupiter.api.Test;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
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
        ByteBuffer b = ByteBuffer.allocate(512);
        b.putShort((short) 0x1234).putShort((short) 0x8180).putShort((short) 1).putShort((short) 1).putShort((short) 0).putShort((short) 0);
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
        assertNull(UpstreamTransport.parseMatching(answer(Type.WKS, new byte[]{1, 2, 3, 4, 6}), 0x1234, question), "WKS, empty bitmap");
        assertNotNull(UpstreamTransport.parseMatching(answer(Type.A, new byte[]{1, 2, 3, 4}), 0x1234, question), "a plain A is kept");
    }
}
