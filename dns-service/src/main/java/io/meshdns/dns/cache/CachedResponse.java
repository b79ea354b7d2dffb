package io.meshdns.dns.cache;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;

import org.xbill.DNS.Message;

/**
 * One cached upstream response, kept in wire format with ID 0 and with the offset of every TTL field,
 * so a hit is a byte copy plus a few patches: the query's ID, RD and CD bits, the question name's exact
 * case (0x20), and each TTL counted down by the seconds spent in the cache (RFC 1035 §7.3).
 * Immutable once built; safe to share between threads.
 */
public final class CachedResponse {
    private static final int QNAME_OFFSET = 12;
    private static final int FLAG_AA = 0x04;
    private static final int FLAG_RD = 0x01;
    private static final int FLAG_CD = 0x10;

    private final byte[] wire;
    private final int[] ttlOffsets;
    private final DnsCache.Kind kind;
    private final long storedAtMillis;
    private final long freshUntilMillis;
    private final long staleUntilMillis;

    CachedResponse(byte[] wire, int[] ttlOffsets, DnsCache.Kind kind, long storedAtMillis, long ttlSeconds,
                   long staleWindowSeconds) {
        this.wire = wire;
        this.ttlOffsets = ttlOffsets;
        this.kind = kind;
        this.storedAtMillis = storedAtMillis;
        this.freshUntilMillis = storedAtMillis + ttlSeconds * 1000;
        this.staleUntilMillis = kind == DnsCache.Kind.SERVFAIL
                ? freshUntilMillis // a failure is never served stale
                : freshUntilMillis + staleWindowSeconds * 1000;
    }

    public DnsCache.Kind kind() {
        return kind;
    }

    boolean isFresh(long nowMillis) {
        return nowMillis < freshUntilMillis;
    }

    boolean isStaleServable(long nowMillis) {
        return nowMillis < staleUntilMillis;
    }

    /** Wire bytes for a fresh hit: TTLs reduced by the whole seconds elapsed since the entry was stored. */
    public byte[] renderWire(int id, byte[] questionName, boolean rd, boolean cd, long nowMillis) {
        return renderWire(id, questionName, 0, questionName.length, rd, cd, nowMillis, null);
    }

    /**
     * {@link #renderWire(int, byte[], boolean, boolean, long)} for a listener's fast path: the question
     * name's case is taken from {@code source[nameOffset, nameOffset + nameLength)} (the raw query, so no
     * copy of it is made), and {@code additional}, one whole resource record in wire form (the listener's
     * OPT), is appended last with ARCOUNT counting it; null appends nothing.
     */
    public byte[] renderWire(int id, byte[] source, int nameOffset, int nameLength, boolean rd, boolean cd,
                             long nowMillis, byte[] additional) {
        long elapsed = Math.max(0, (nowMillis - storedAtMillis) / 1000);
        byte[] out = patchedCopy(id, source, nameOffset, nameLength, rd, cd, additional == null ? 0 : additional.length);
        for (int off : ttlOffsets) {
            WireTtls.put32(out, off, Math.max(0, WireTtls.u32(out, off) - elapsed));
        }
        if (additional != null) {
            System.arraycopy(additional, 0, out, wire.length, additional.length);
            int arcount = WireTtls.u16(out, 10) + 1;
            out[10] = (byte) (arcount >>> 8);
            out[11] = (byte) arcount;
        }
        return out;
    }

    /** Length of {@link #renderWire} output before anything is appended. */
    public int length() {
        return wire.length;
    }

    /** Wire bytes for a stale answer (RFC 8767 §4): every TTL set to {@code staleTtl}. */
    public byte[] renderStaleWire(int id, byte[] questionName, boolean rd, boolean cd, long staleTtl) {
        byte[] out = patchedCopy(id, questionName, 0, questionName.length, rd, cd, 0);
        for (int off : ttlOffsets) {
            WireTtls.put32(out, off, staleTtl);
        }
        return out;
    }

    /** The same as {@link #renderWire} parsed into a dnsjava message, for the {@code Forwarder} seam. */
    public Message render(Message query, long nowMillis) {
        return parse(renderWire(query.getHeader().getID(), query.getQuestion().getName().toWire(),
                query.getHeader().getFlag(org.xbill.DNS.Flags.RD), query.getHeader().getFlag(org.xbill.DNS.Flags.CD),
                nowMillis));
    }

    public Message renderStale(Message query, long staleTtl) {
        return parse(renderStaleWire(query.getHeader().getID(), query.getQuestion().getName().toWire(),
                query.getHeader().getFlag(org.xbill.DNS.Flags.RD), query.getHeader().getFlag(org.xbill.DNS.Flags.CD),
                staleTtl));
    }

    private byte[] patchedCopy(int id, byte[] name, int nameOffset, int nameLength, boolean rd, boolean cd, int spare) {
        byte[] out = spare == 0 ? wire.clone() : Arrays.copyOf(wire, wire.length + spare);
        out[0] = (byte) (id >>> 8);
        out[1] = (byte) id;
        // A cached answer is not authoritative; RD and CD echo this query, not the one that filled the cache.
        int flags1 = out[2] & ~(FLAG_AA | FLAG_RD);
        out[2] = (byte) (rd ? flags1 | FLAG_RD : flags1);
        int flags2 = out[3] & ~FLAG_CD;
        out[3] = (byte) (cd ? flags2 | FLAG_CD : flags2);
        // The stored question name is uncompressed at offset 12 and differs from this query's only in
        // case (the key compares names case-insensitively), so copying it echoes the client's 0x20 case;
        // answer owners compressed to point at it follow.
        if (WireTtls.skipName(out, QNAME_OFFSET) - QNAME_OFFSET == nameLength) {
            System.arraycopy(name, nameOffset, out, QNAME_OFFSET, nameLength);
        }
        return out;
    }

    private static Message parse(byte[] wire) {
        try {
            return new Message(wire);
        } catch (IOException e) {
            throw new UncheckedIOException("cached response does not parse", e); // cannot happen: we wrote it
        }
    }
}
