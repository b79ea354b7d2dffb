package io.meshdns.dns.dynamic;

import io.meshdns.dns.DnsClient;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.TSIGRecord;
import org.xbill.DNS.Type;
import org.xbill.DNS.Update;

import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static io.meshdns.dns.dynamic.DynamicZoneTest.KEY;
import static io.meshdns.dns.dynamic.DynamicZoneTest.ZONE;
import static io.meshdns.dns.dynamic.DynamicZoneTest.fresh;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Signed requests checked exactly as RFC 8945 says, sent as raw bytes over real sockets to the running
 * dns-service (the %test profile's dynamic zones and key): a header ID a forwarder rewrote still verifies (the
 * MAC covers the Original ID), a changed Original ID does not, bytes after the message and MACs shorter than
 * section 5.2.2.1 allows are FORMERR, and a captured signed UPDATE sent again is refused.
 */
@QuarkusTest
class SignedRequestTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    @Inject
    DnsClient client;

    /** A signed UPDATE adding {@code name A 192.0.2.x}, as the client put it on the wire. */
    static byte[] signedAdd(String name, String address, int id) throws IOException {
        Update u = new Update(ZONE);
        u.getHeader().setID(id);
        u.add(Name.fromString(name), Type.A, 60, address);
        u.setTSIG(KEY, Rcode.NOERROR, null);
        return u.toWire(65535);
    }

    byte[] exchange(byte[] wire, boolean tcp) throws IOException {
        if (!tcp) {
            return client.rawUdp(wire, TIMEOUT);
        }
        List<byte[]> replies = client.rawTcp(List.of(wire), 1, TIMEOUT);
        return replies.isEmpty() ? null : replies.get(0);
    }

    List<String> addresses(String name) throws IOException {
        return client.udp(name, Type.A).getSection(Section.ANSWER).stream().map(Record::rdataToString).toList();
    }

    /** RFC 8945 section 4.3.2: the MAC covers the Original ID, not the header ID a forwarder may rewrite. */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void anUpdateWhoseHeaderIdAForwarderRewroteVerifies(boolean tcp) throws Exception {
        String name = fresh("fwd");
        byte[] wire = signedAdd(name, "192.0.2.41", 0x1111);
        wire[0] = 0x2a;
        wire[1] = 0x2b;
        byte[] reply = exchange(wire, tcp);
        assertNotNull(reply, "an answer");
        Message response = new Message(reply);
        assertEquals(0x2a2b, response.getHeader().getID(), "the response carries the ID the request arrived with");
        assertEquals(Rcode.NOERROR, response.getRcode(), response.toString());
        TSIGRecord requestTsig = new Message(wire).getTSIG();
        assertEquals(Rcode.NOERROR, KEY.verify(response, reply, requestTsig), "the response is signed for that request");
        assertEquals(List.of("192.0.2.41"), addresses(name));
    }

    @Test
    void aSignedAxfrWhoseHeaderIdWasRewrittenIsServed() throws Exception {
        Message query = Message.newQuery(Record.newRecord(ZONE, Type.AXFR, DClass.IN));
        query.getHeader().setID(0x0101);
        query.setTSIG(KEY, Rcode.NOERROR, null);
        byte[] wire = query.toWire(65535);
        wire[0] = 0x03;
        wire[1] = 0x04;
        List<byte[]> replies = client.rawTcp(List.of(wire), 1, TIMEOUT);
        assertEquals(1, replies.size(), "an answer");
        Message first = new Message(replies.get(0));
        assertEquals(Rcode.NOERROR, first.getRcode(), first.toString());
        assertEquals(Type.SOA, first.getSection(Section.ANSWER).get(0).getType(), "the transfer starts with the SOA");
    }

    /** The Original ID sits before the error and other-length fields at the very end of a request's TSIG. */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aChangedOriginalIdIsBadsig(boolean tcp) throws Exception {
        String name = fresh("orig");
        byte[] wire = signedAdd(name, "192.0.2.42", 0x2222);
        wire[wire.length - 6] ^= 0x01;
        Message response = new Message(exchange(wire, tcp));
        assertEquals(Rcode.NOTAUTH, response.getRcode(), response.toString());
        assertEquals(Rcode.BADSIG, response.getTSIG().getError());
        assertTrue(addresses(name).isEmpty(), "nothing applied");
    }

    @Test
    void aChangedCoveredByteIsBadsig() throws Exception {
        String name = fresh("byte");
        byte[] wire = signedAdd(name, "192.0.2.43", 0x3333);
        byte[] good = wire.clone();
        int address = indexOf(wire, new byte[] {(byte) 192, 0, 2, 43});
        wire[address + 3] = 44;
        Message response = new Message(client.rawUdp(wire, TIMEOUT));
        assertEquals(Rcode.NOTAUTH, response.getRcode());
        assertEquals(Rcode.BADSIG, response.getTSIG().getError());
        assertTrue(addresses(name).isEmpty());
        assertEquals(Rcode.NOERROR, new Message(client.rawUdp(good, TIMEOUT)).getRcode(), "the unchanged bytes verify");
    }

    /** The MAC covers the message up to the TSIG record: anything after it was not signed. */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void bytesAfterASignedRequestAreFormerr(boolean tcp) throws Exception {
        String name = fresh("trail");
        byte[] signed = signedAdd(name, "192.0.2.45", 0x4444);
        byte[] wire = Arrays.copyOf(signed, signed.length + 4);
        wire[signed.length] = 0x7f;
        byte[] reply = exchange(wire, tcp);
        assertNotNull(reply, "an answer");
        assertEquals(Rcode.FORMERR, new Message(reply).getRcode());
        assertTrue(addresses(name).isEmpty(), "nothing applied");
    }

    /**
     * RFC 8945 section 5.2.2.1: a MAC shorter than max(10, half the hash) is FORMERR (for HMAC-SHA256: below 16
     * bytes); a MAC truncated to an allowed length verifies (refusing those is a setting, see TsigGateTest).
     */
    @Test
    void aMacTruncatedBelowTheRfcMinimumIsFormerrAndOneAtTheMinimumVerifies() throws Exception {
        String shortName = fresh("mac10");
        Message response = new Message(client.rawUdp(withMacLength(signedAdd(shortName, "192.0.2.46", 0x5555), 10), TIMEOUT));
        assertEquals(Rcode.FORMERR, response.getRcode(), response.toString());
        assertTrue(addresses(shortName).isEmpty(), "nothing applied");

        String okName = fresh("mac16");
        Message ok = new Message(client.rawUdp(withMacLength(signedAdd(okName, "192.0.2.47", 0x5556), 16), TIMEOUT));
        assertEquals(Rcode.NOERROR, ok.getRcode(), ok.toString());
        assertEquals(List.of("192.0.2.47"), addresses(okName));
    }

    /**
     * A captured signed UPDATE sent again within the fudge window: the delete the owner sent, replayed after the
     * owner added the record back, must not take it away again.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aReplayedSignedUpdateIsRefused(boolean tcp) throws Exception {
        String name = fresh("replay");
        assertEquals(Rcode.NOERROR, new Message(exchange(signedAdd(name, "192.0.2.48", 0x6001), tcp)).getRcode());
        Update delete = new Update(ZONE);
        delete.getHeader().setID(0x6002);
        delete.delete(Name.fromString(name), Type.A);
        delete.setTSIG(KEY, Rcode.NOERROR, null);
        byte[] captured = delete.toWire(65535);
        assertEquals(Rcode.NOERROR, new Message(exchange(captured, tcp)).getRcode());
        assertTrue(addresses(name).isEmpty());
        assertEquals(Rcode.NOERROR, new Message(exchange(signedAdd(name, "192.0.2.48", 0x6003), tcp)).getRcode());

        byte[] reply = exchange(captured, tcp);
        assertNotNull(reply, "the replay is answered");
        Message replayed = new Message(reply);
        assertEquals(Rcode.REFUSED, replayed.getRcode(), replayed.toString());
        assertEquals(Rcode.NOERROR, KEY.verify(replayed, reply, new Message(captured).getTSIG()),
                "the refusal is signed: the client can trust it");
        assertEquals(List.of("192.0.2.48"), addresses(name), "the replayed delete changed nothing");
    }

    /** The same signed request with its MAC cut to {@code length} bytes (a prefix of a valid MAC is a valid truncated MAC). */
    static byte[] withMacLength(byte[] wire, int length) throws IOException {
        Message m = new Message(wire);
        TSIGRecord t = m.getTSIG();
        TSIGRecord cut = new TSIGRecord(t.getName(), t.getDClass(), t.getTTL(), t.getAlgorithm(), t.getTimeSigned(),
                t.getFudge(), Arrays.copyOf(t.getSignature(), length), t.getOriginalID(), t.getError(), t.getOther());
        m.removeRecord(t, Section.ADDITIONAL);
        m.addRecord(cut, Section.ADDITIONAL);
        byte[] out = m.toWire();
        assertFalse(Arrays.equals(out, wire));
        return out;
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) continue outer;
            }
            return i;
        }
        throw new AssertionError("not found");
    }
}
