package io.meshdns.dns.dynamic;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.TSIG;
import org.xbill.DNS.Update;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;

/**
 * TSIG verification ({@link TsigCheck}, dnsjava's {@code TSIG.verify}) as the UPDATE handler calls it: on arbitrary
 * bytes, and on a correctly signed UPDATE with fuzzed bytes overwritten. Outcomes: UNSIGNED, VERIFIED or FAILED,
 * never a throwable; and a changed message must never verify (a MAC accepted for other bytes is a forgery).
 */
class TsigFuzz {
    static final Name ZONE = Name.fromConstantString("mesh.example.");
    static final TsigKeyring KEYS = TsigKeyring.parse(List.of("exposure:hmac-sha256:" + "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTMyYg=="));
    static final byte[] SIGNED = signed();

    static byte[] signed() {
        try {
            Update u = new Update(ZONE);
            u.add(Name.fromConstantString("a.mesh.example."), org.xbill.DNS.Type.A, 60, "192.0.2.1");
            TSIG key = KEYS.get(Name.fromConstantString("exposure."));
            u.setTSIG(key, org.xbill.DNS.Rcode.NOERROR, null);
            return u.toWire(65535);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @FuzzTest(maxExecutions = 1_000_000, maxDuration = "25m")
    void verify(FuzzedDataProvider data) {
        byte[] wire;
        if (data.consumeBoolean()) {
            wire = SIGNED.clone();
            int n = data.consumeInt(1, 8);
            for (int i = 0; i < n; i++) {
                wire[data.consumeInt(0, wire.length - 1)] = data.consumeByte();
            }
            if (data.consumeBoolean()) wire = Arrays.copyOf(wire, data.consumeInt(12, wire.length));
        } else {
            wire = data.consumeRemainingAsBytes();
        }
        Message m;
        try {
            m = new Message(wire);
        } catch (IOException | IllegalArgumentException e) {
            return;
        }
        TsigCheck check = TsigCheck.of(KEYS, m, wire);
        if (check.status() == TsigCheck.Status.VERIFIED && !Arrays.equals(uncovered(wire), uncovered(SIGNED))) {
            throw new AssertionError("a changed message verified: " + Arrays.toString(wire));
        }
    }

    /**
     * The bytes the MAC does not cover, blanked: the header ID (RFC 8945 signs the original ID, carried in the TSIG
     * record) and the letter case (the key and algorithm names are signed in canonical form).
     */
    static byte[] uncovered(byte[] wire) {
        byte[] w = wire.clone();
        w[0] = 0;
        w[1] = 0;
        for (int i = 0; i < w.length; i++) {
            if (w[i] >= 'A' && w[i] <= 'Z') w[i] += 'a' - 'A';
        }
        return w;
    }
}
