package io.meshdns.dns.tsig;

import org.junit.jupiter.api.Test;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Section;
import org.xbill.DNS.TSIG;
import org.xbill.DNS.TSIGRecord;
import org.xbill.DNS.Type;
import org.xbill.DNS.Update;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The TSIG step on its own, with a fixed clock: each RFC 8945 verdict, the truncation setting, the replay cache. */
class TsigGateTest {
    static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);
    static final String ENTRY = "k:hmac-sha256:c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTMyYg==";
    static final Name KEY_NAME = Name.fromConstantString("k.");

    static TsigKeyring keys(boolean allowTruncated, Clock clock) {
        return TsigKeyring.parse("meshdns.dns.tsig-keys", List.of(ENTRY), clock, allowTruncated);
    }

    static byte[] signed(TSIG key, int id) throws Exception {
        Update u = new Update(Name.fromConstantString("mesh.example."));
        u.getHeader().setID(id);
        u.add(Name.fromConstantString("a.mesh.example."), Type.A, 60, "192.0.2.1");
        u.setTSIG(key, Rcode.NOERROR, null);
        return u.toWire(65535);
    }

    static TsigVerdict check(TsigGate gate, byte[] wire) throws Exception {
        return gate.check(new Message(wire), wire);
    }

    static byte[] withMac(byte[] wire, int length) throws Exception {
        Message m = new Message(wire);
        TSIGRecord t = m.getTSIG();
        m.removeRecord(t, Section.ADDITIONAL);
        m.addRecord(new TSIGRecord(t.getName(), t.getDClass(), t.getTTL(), t.getAlgorithm(), t.getTimeSigned(),
                t.getFudge(), Arrays.copyOf(t.getSignature(), length), t.getOriginalID(), t.getError(), t.getOther()),
                Section.ADDITIONAL);
        return m.toWire();
    }

    @Test
    void aSignedRequestVerifiesOnceAndItsCopyIsReplayed() throws Exception {
        TsigGate gate = new TsigGate(keys(true, CLOCK));
        byte[] wire = signed(gate.keys().get(KEY_NAME), 7);
        assertInstanceOf(TsigVerdict.Verified.class, check(gate, wire));
        TsigVerdict again = check(gate, wire);
        assertInstanceOf(TsigVerdict.Replayed.class, again);
        assertEquals(Rcode.REFUSED, again.rcode());
        assertEquals(1, gate.replays().size(KEY_NAME));
    }

    @Test
    void theSameMacIsAcceptedAgainOnlyAfterItsWindowWhenTheTimeCheckRefusesItAnyway() throws Exception {
        TsigKeyring signer = keys(true, CLOCK);
        byte[] wire = signed(signer.get(KEY_NAME), 8);
        ReplayCache cache = new ReplayCache();
        assertInstanceOf(TsigVerdict.Verified.class, check(new TsigGate(signer, cache), wire));
        Clock later = Clock.offset(CLOCK, Duration.ofSeconds(301));
        TsigVerdict late = check(new TsigGate(keys(true, later), cache), wire);
        assertInstanceOf(TsigVerdict.Failed.class, late);
        assertEquals(Rcode.BADTIME, ((TsigVerdict.Failed) late).error());
    }

    @Test
    void aRewrittenHeaderIdVerifiesAndAChangedOriginalIdDoesNot() throws Exception {
        TsigGate gate = new TsigGate(keys(true, CLOCK));
        byte[] rewritten = signed(gate.keys().get(KEY_NAME), 9);
        rewritten[0] = 0x55;
        assertInstanceOf(TsigVerdict.Verified.class, check(gate, rewritten));
        byte[] original = signed(gate.keys().get(KEY_NAME), 10);
        original[original.length - 6] ^= 1;
        TsigVerdict v = check(gate, original);
        assertEquals(Rcode.BADSIG, ((TsigVerdict.Failed) v).error());
    }

    @Test
    void macLengthsFollowRfc8945AndTheSettingRefusesAnyTruncation() throws Exception {
        TsigGate allow = new TsigGate(keys(true, CLOCK));
        TsigGate refuse = new TsigGate(keys(false, CLOCK));
        TSIG key = allow.keys().get(KEY_NAME);
        assertInstanceOf(TsigVerdict.Malformed.class, check(allow, withMac(signed(key, 11), 15)), "below half of 32");
        assertInstanceOf(TsigVerdict.Malformed.class, check(allow, withMac(signed(key, 12), 9)), "below 10");
        assertInstanceOf(TsigVerdict.Verified.class, check(allow, withMac(signed(key, 13), 16)));
        TsigVerdict trunc = check(refuse, withMac(signed(key, 14), 16));
        assertEquals(Rcode.BADTRUNC, ((TsigVerdict.Failed) trunc).error());
        assertEquals(Rcode.NOTAUTH, trunc.rcode());
        assertInstanceOf(TsigVerdict.Verified.class, check(refuse, signed(key, 15)), "the full MAC is not truncated");
        TsigVerdict wrongTruncated = check(refuse, withMac(flipFirstMacByte(signed(key, 16)), 16));
        assertEquals(Rcode.BADSIG, ((TsigVerdict.Failed) wrongTruncated).error(), "the MAC is checked before the policy");
    }

    @Test
    void anUnknownKeyIsBadkeyAndTrailingBytesAreFormerr() throws Exception {
        TsigGate gate = new TsigGate(keys(true, CLOCK));
        TSIG stranger = new TSIG(TSIG.HMAC_SHA256, "stranger.", "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTMyYg==");
        assertEquals(Rcode.BADKEY, ((TsigVerdict.Failed) check(gate, signed(stranger, 17))).error());
        byte[] wire = signed(gate.keys().get(KEY_NAME), 18);
        byte[] longer = Arrays.copyOf(wire, wire.length + 1);
        assertInstanceOf(TsigVerdict.Malformed.class, check(gate, longer));
        assertInstanceOf(TsigVerdict.Verified.class, check(gate, wire), "the same bytes without the tail");
    }

    /**
     * Found by TsigFuzz: a TSIG TTL with its top bit set is read as 0 (RFC 2181), so the MAC verified over bytes that
     * were not signed. RFC 8945 section 4.2 says TTL 0 and class ANY: anything else is FORMERR.
     */
    @Test
    void aTsigWhoseTtlOrClassIsNotZeroAndAnyIsFormerr() throws Exception {
        TsigGate gate = new TsigGate(keys(true, CLOCK));
        byte[] wire = signed(gate.keys().get(KEY_NAME), 20);
        MessageLayout layout = MessageLayout.of(wire);
        int ttlAt = layout.lastRecordStart() + "k".length() + 2 + 4; // owner k. (3 bytes), type, class
        byte[] ttl = wire.clone();
        ttl[ttlAt] = (byte) 0xCF;
        assertInstanceOf(TsigVerdict.Malformed.class, check(gate, ttl));
        byte[] dclass = wire.clone();
        dclass[ttlAt - 1] = 1;
        assertInstanceOf(TsigVerdict.Malformed.class, check(gate, dclass));
        assertInstanceOf(TsigVerdict.Verified.class, check(gate, wire));
    }

    @Test
    void theReplayCacheIsBoundedPerKey() {
        ReplayCache cache = new ReplayCache(3);
        Instant expires = NOW.plusSeconds(300);
        for (int i = 0; i < 5; i++) {
            assertTrue(cache.firstUse(KEY_NAME, new byte[] {(byte) i}, NOW, expires));
        }
        assertEquals(3, cache.size(KEY_NAME));
        assertEquals(2, cache.evicted());
        assertFalse(cache.firstUse(KEY_NAME, new byte[] {4}, NOW, expires), "the newest are kept");
        assertTrue(cache.firstUse(Name.fromConstantString("other."), new byte[] {4}, NOW, expires), "per key");
        assertTrue(cache.firstUse(KEY_NAME, new byte[] {9}, NOW.plusSeconds(301), NOW.plusSeconds(600)));
        assertEquals(1, cache.size(KEY_NAME), "expired MACs are dropped");
    }

    @Test
    void theLayoutFindsTheEndOfTheMessage() throws Exception {
        byte[] wire = signed(keys(true, CLOCK).get(KEY_NAME), 19);
        MessageLayout layout = MessageLayout.of(wire);
        assertNotNull(layout);
        assertEquals(wire.length, layout.end());
        assertEquals(Type.TSIG, layout.lastRecordType());
        assertNull(MessageLayout.of(Arrays.copyOf(wire, wire.length - 1)));
    }

    private static byte[] flipFirstMacByte(byte[] wire) throws Exception {
        Message m = new Message(wire);
        TSIGRecord t = m.getTSIG();
        byte[] mac = t.getSignature().clone();
        mac[0] ^= 1;
        m.removeRecord(t, Section.ADDITIONAL);
        m.addRecord(new TSIGRecord(t.getName(), t.getDClass(), t.getTTL(), t.getAlgorithm(), t.getTimeSigned(),
                t.getFudge(), mac, t.getOriginalID(), t.getError(), t.getOther()), Section.ADDITIONAL);
        return m.toWire();
    }
}
