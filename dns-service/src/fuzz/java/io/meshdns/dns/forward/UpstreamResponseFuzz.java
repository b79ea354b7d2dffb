package io.meshdns.dns.forward;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.meshdns.dns.cache.CacheKey;
import io.meshdns.dns.cache.CacheSettings;
import io.meshdns.dns.cache.CachedResponse;
import io.meshdns.dns.cache.DnsCache;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Type;

import java.nio.ByteBuffer;

/**
 * What the forwarder does with an upstream's bytes, in order: {@link UpstreamWire#parseMatching} (ID and
 * question checked), {@link UpstreamTransport#restoreCase} (the 0x20 question back in the client's case), the cache
 * ({@link DnsCache#put}, then rendering the entry for a later client), {@link Responses#toClient} and the wire form
 * sent to the client. The response starts with a matching header and question (so the fuzzer spends its time past
 * the ID check), then fuzzed flags, counts and sections. A hostile upstream may only get its answer dropped: any
 * throwable from these steps is a finding.
 */
class UpstreamResponseFuzz {
    private static final Name ASKED = Name.fromConstantString("www.example.com.");
    private static final Name SENT = Name.fromConstantString("wWw.ExAmple.cOm.");
    private static final int ID = 0x1234;

    @FuzzTest(maxExecutions = 1_000_000, maxDuration = "25m")
    void response(FuzzedDataProvider data) throws Exception {
        int type = data.pickValue(new int[] {Type.A, Type.AAAA, Type.CNAME, Type.MX, Type.TXT, Type.SRV, Type.PTR, Type.NS, Type.SOA, Type.HTTPS});
        Record question = Record.newRecord(ASKED, type, DClass.IN);
        Message query = Message.newQuery(question);
        query.getHeader().setID(77);
        if (data.consumeBoolean()) query.getHeader().setFlag(Flags.CD);

        byte[] qname = SENT.toWireCanonical();
        // toWireCanonical lowers the case: the 0x20 name as sent keeps its letters.
        byte[] mixed = SENT.toWire();
        ByteBuffer b = ByteBuffer.allocate(12 + mixed.length + 4 + 2048);
        b.putShort((short) ID);
        b.putShort((short) (0x8000 | (data.consumeInt(0, 0x7FFF))));   // QR set, the rest fuzzed
        b.putShort((short) 1);
        b.putShort((short) data.consumeInt(0, 8));
        b.putShort((short) data.consumeInt(0, 8));
        b.putShort((short) data.consumeInt(0, 8));
        b.put(data.consumeBoolean() ? mixed : qname);
        b.putShort((short) type).putShort((short) DClass.IN);
        byte[] rest = data.consumeBytes(Math.min(2048, b.remaining()));
        b.put(rest);
        byte[] wire = new byte[b.position()];
        b.flip();
        b.get(wire);

        Message response = UpstreamWire.parseMatching(wire, ID, Record.newRecord(SENT, type, DClass.IN));
        if (response == null) return;
        UpstreamTransport.restoreCase(response, SENT, question);
        DnsCache cache = new DnsCache(CacheSettings.defaults(), () -> 1_000_000L);
        CacheKey key = CacheKey.of(query);
        if (cache.put(key, response)) {
            CachedResponse hit = cache.lookup(key);
            if (hit != null) {
                hit.render(query, 1_001_000L).toWire(65535);
                hit.renderWire(77, ASKED.toWire(), true, false, 1_001_000L);
            }
        }
        Message out = Responses.toClient(response, query);
        out.toWire(512);
        out.toWire(65535);
    }
}
