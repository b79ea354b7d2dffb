package io.meshdns.dns.tsig;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.meshdns.dns.fuzz.DamagedWire;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.TSIG;
import org.xbill.DNS.Type;
import org.xbill.DNS.Update;

import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;

/**
 * The TSIG step ({@link TsigGate}, over dnsjava's {@code TSIG.verify}) as the request path runs it: on arbitrary
 * bytes, and on a correctly signed UPDATE with fuzzed bytes overwritten, cut or appended. Signed and checked
 * against one fixed clock (through the keyring), so every input stays inside the time window however long the run
 * and a finding replays the same way later. Outcomes: a verdict, never a throwable; and a message that is accepted
 * (verified, or refused as a replay, which also means the MAC verified) must be the signed one but for the bytes
 * the MAC does not cover: the header ID (RFC 8945 signs the Original ID) and the letter case of the key and
 * algorithm names (signed in canonical form). Anything else accepted is a forgery.
 */
class TsigFuzz {
    static final Clock CLOCK = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
    static final Name ZONE = Name.fromConstantString("mesh.example.");
    static final TsigKeyring KEYS = TsigKeyring.parse("fuzz", List.of("exposure:hmac-sha256:c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTMyYg=="),
            CLOCK, true);
    static final TsigGate GATE = new TsigGate(KEYS);
    static final byte[] SIGNED = signed();

    static byte[] signed() {
        try {
            Update u = new Update(ZONE);
            u.getHeader().setID(0x4d53);
            u.add(Name.fromConstantString("a.mesh.example."), Type.A, 60, "192.0.2.1");
            TSIG key = KEYS.get(Name.fromConstantString("exposure."));
            u.setTSIG(key, Rcode.NOERROR, null);
            return u.toWire(65535);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @FuzzTest(maxExecutions = 1_000_000, maxDuration = "25m")
    void verify(FuzzedDataProvider data) {
        byte[] wire;
        if (data.consumeBoolean()) {
            wire = DamagedWire.of(data, SIGNED, 1, 8, 16, false);
        } else {
            wire = data.consumeRemainingAsBytes();
        }
        Message m;
        try {
            m = new Message(wire);
        } catch (IOException | IllegalArgumentException e) {
            return; // the request path answers these FORMERR before the TSIG step
        }
        TsigVerdict verdict = GATE.check(m, wire);
        boolean accepted = verdict instanceof TsigVerdict.Verified || verdict instanceof TsigVerdict.Replayed;
        if (accepted && !Arrays.equals(uncovered(wire), uncovered(SIGNED))) {
            throw new AssertionError("a changed message was accepted (" + verdict.label() + "): " + Arrays.toString(wire));
        }
    }

    /**
     * {@code wire} with the bytes the MAC does not cover blanked: the header ID, and the case of the TSIG record's
     * owner (the key name) and of its algorithm name, both uncompressed at the start of the last record and of its
     * RDATA. Nothing else: a case change anywhere else (a name in the update, the RDATA, the MAC) is covered.
     */
    static byte[] uncovered(byte[] wire) {
        byte[] w = wire.clone();
        w[0] = 0;
        w[1] = 0;
        MessageLayout layout = MessageLayout.of(w);
        if (layout == null || layout.lastRecordStart() < 0) {
            return w;
        }
        int ownerEnd = foldName(w, layout.lastRecordStart());
        if (ownerEnd > 0 && ownerEnd + 10 <= w.length) {
            foldName(w, ownerEnd + 10);
        }
        return w;
    }

    /** Lower-cases the labels of the uncompressed name at {@code pos}; returns the offset after it, or -1. */
    private static int foldName(byte[] w, int pos) {
        while (pos < w.length) {
            int length = w[pos] & 0xFF;
            if (length == 0) return pos + 1;
            if (length > 63 || pos + 1 + length > w.length) return -1;
            for (int i = pos + 1; i <= pos + length; i++) {
                if (w[i] >= 'A' && w[i] <= 'Z') w[i] += 'a' - 'A';
            }
            pos += 1 + length;
        }
        return -1;
    }
}
