package io.meshdns.dns.cache;

import java.net.InetAddress;

import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * Rough single-thread cost of a cache hit (not a test; run its main). Compares the wire hit
 * (lookup + byte copy + TTL patch), the same parsed into a dnsjava Message (what the Forwarder seam
 * returns), and for reference a dnsjava Message clone + toWire (the "store a Message" design).
 */
public final class CacheHitBench {
    public static void main(String[] args) throws Exception {
        DnsCache cache = new DnsCache(CacheSettings.defaults(), System::currentTimeMillis);
        Name name = Name.fromConstantString("www.example.test.");
        Message q = Message.newQuery(Record.newRecord(name, Type.A, DClass.IN));
        Message r = new Message(q.getHeader().getID());
        r.getHeader().setFlag(Flags.QR);
        r.addRecord(q.getQuestion(), Section.QUESTION);
        for (int i = 1; i <= 2; i++) {
            r.addRecord(new ARecord(name, DClass.IN, 300, InetAddress.getByName("192.0.2." + i)), Section.ANSWER);
        }
        CacheKey key = CacheKey.of(q);
        cache.put(key, r);
        byte[] qname = name.toWire();
        int n = 2_000_000;
        for (int round = 0; round < 3; round++) {
            long sink = 0;
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                sink += cache.lookup(CacheKey.of(q)).renderWire(i & 0xFFFF, qname, true, false, System.currentTimeMillis()).length;
            }
            long t1 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                sink += cache.lookup(key).render(q, System.currentTimeMillis()).numBytes();
            }
            long t2 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                sink += r.clone().toWire().length;
            }
            long t3 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                sink += cache.lookup(key).render(q, System.currentTimeMillis()).toWire().length;
            }
            long t4 = System.nanoTime();
            System.out.printf("round %d: wire hit %.0f ns, Message hit %.0f ns, Message hit + toWire %.0f ns, clone+toWire %.0f ns (%d)%n",
                    round, (t1 - t0) / (double) n, (t2 - t1) / (double) n, (t4 - t3) / (double) n, (t3 - t2) / (double) n, sink);
        }
    }
}
