package io.meshdns.dns.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;

import java.util.Arrays;

/**
 * A valid message as a broken or hostile sender may put it on the wire, for targets whose interesting code lies
 * past the parser that arbitrary bytes rarely get through: some bytes overwritten, then possibly cut short or given
 * bytes after its end.
 */
public final class DamagedWire {
    private DamagedWire() {
    }

    /**
     * Reads, in this order: how many bytes to overwrite ({@code minChanged} to {@code maxChanged}), each one's place
     * and value, then whether to cut the message (keeping its 12-byte header) or append up to {@code maxAppended}
     * bytes. With {@code cutSetsTc} a cut message has its header's TC bit set, as a truncated answer would.
     */
    public static byte[] of(FuzzedDataProvider data, byte[] valid, int minChanged, int maxChanged, int maxAppended,
                            boolean cutSetsTc) {
        byte[] wire = valid.clone();
        int n = data.consumeInt(minChanged, maxChanged);
        for (int i = 0; i < n; i++) {
            wire[data.consumeInt(0, wire.length - 1)] = data.consumeByte();
        }
        int shape = data.consumeInt(0, 3);
        if (shape == 1) {
            wire = Arrays.copyOf(wire, data.consumeInt(12, wire.length));
            if (cutSetsTc) wire[2] |= 0x02;
        } else if (shape == 2) {
            byte[] tail = data.consumeBytes(maxAppended);
            byte[] longer = Arrays.copyOf(wire, wire.length + tail.length);
            System.arraycopy(tail, 0, longer, wire.length, tail.length);
            wire = longer;
        }
        return wire;
    }
}
