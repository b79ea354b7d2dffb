package io.meshdns.dns.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.xbill.DNS.AAAARecord;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.CNAMERecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.ExtendedFlags;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/** TTL math, negative caching, LRU and serve-stale, with a manual clock: exact, no waiting. */
class DnsCacheTest {
    private static final Name WWW = Name.fromConstantString("www.example.test.");
    private static final Name ZONE = Name.fromConstantString("example.test.");

    private final AtomicLong now = new AtomicLong(1_000_000);

    private DnsCache cache(CacheSettings settings) {
        return new DnsCache(settings, now::get);
    }

    private void advanceSeconds(double s) {
        now.addAndGet((long) (s * 1000));
    }

    private static Message query(String name, int type, int id) {
        Message q = Message.newQuery(Record.newRecord(Name.fromConstantString(name), type, DClass.IN));
        q.getHeader().setID(id);
        return q;
    }

    private static Message response(Message query, int rcode, Record... answers) {
        Message r = new Message(query.getHeader().getID());
        r.getHeader().setFlag(Flags.QR);
        r.getHeader().setFlag(Flags.RD);
        r.getHeader().setFlag(Flags.RA);
        r.getHeader().setFlag(Flags.AA);
        r.getHeader().setRcode(rcode);
        r.addRecord(query.getQuestion(), Section.QUESTION);
        for (Record a : answers) {
            r.addRecord(a, Section.ANSWER);
        }
        return r;
    }

    private static ARecord a(Name name, long ttl, String ip) throws Exception {
        return new ARecord(name, DClass.IN, ttl, InetAddress.getByName(ip));
    }

    /** Caches an answer to www.example.test. A with a TTL of 60 s; returns the query it answers. */
    private static Message cacheWwwFor60Seconds(DnsCache cache) throws Exception {
        Message q = query("www.example.test.", Type.A, 1);
        cache.put(CacheKey.of(q), response(q, Rcode.NOERROR, a(WWW, 60, "192.0.2.1")));
        return q;
    }

    private static SOARecord soa(long ttl, long minimum) {
        return new SOARecord(ZONE, DClass.IN, ttl, Name.fromConstantString("ns1.example.test."),
                Name.fromConstantString("hostmaster.example.test."), 1, 3600, 600, 86400, minimum);
    }

    @Test
    void ttlsCountDownAndHitEchoesIdAndQuestionCase() throws Exception {
        DnsCache cache = cache(CacheSettings.defaults());
        Message q = query("www.example.test.", Type.A, 1);
        assertNull(cache.lookup(CacheKey.of(q)));
        assertTrue(cache.put(CacheKey.of(q), response(q, Rcode.NOERROR, a(WWW, 300, "192.0.2.1"), a(WWW, 120, "192.0.2.2"))));

        advanceSeconds(10.9);
        Message q2 = query("WwW.ExAmPlE.TeSt.", Type.A, 4242);
        CachedResponse hit = cache.lookup(CacheKey.of(q2));
        assertNotNull(hit, "lookup is case-insensitive");
        Message answer = hit.render(q2, now.get());
        assertEquals(4242, answer.getHeader().getID());
        assertEquals("WwW.ExAmPlE.TeSt.", answer.getQuestion().getName().toString(), "0x20: the query's case is echoed");
        assertFalse(answer.getHeader().getFlag(Flags.AA), "a cached answer is not authoritative");
        assertTrue(answer.getHeader().getFlag(Flags.QR));
        List<Record> records = answer.getSection(Section.ANSWER);
        assertEquals(2, records.size());
        assertEquals(290, records.get(0).getTTL(), "300 - 10 whole seconds");
        assertEquals(110, records.get(1).getTTL());
        assertEquals("WwW.ExAmPlE.TeSt.", records.get(0).getName().toString(), "owner compressed onto the question");

        advanceSeconds(109); // 119.9 s after the store: the 120 s record is still valid
        assertNotNull(cache.lookup(CacheKey.of(q)));
        assertEquals(1, cache.lookup(CacheKey.of(q)).render(q, now.get()).getSection(Section.ANSWER).get(1).getTTL());
        advanceSeconds(0.1); // 120 s: the entry lives as long as its smallest TTL
        assertNull(cache.lookup(CacheKey.of(q)));
        assertEquals(3, cache.successHits());
        assertEquals(2, cache.misses());
    }

    @Test
    void negativeTtlIsMinOfSoaTtlAndMinimum() {
        DnsCache cache = cache(CacheSettings.defaults());
        // NXDOMAIN: SOA TTL 900 > MINIMUM 60 -> 60
        Message nx = query("nope.example.test.", Type.A, 7);
        Message nxResponse = response(nx, Rcode.NXDOMAIN);
        nxResponse.addRecord(soa(900, 60), Section.AUTHORITY);
        assertTrue(cache.put(CacheKey.of(nx), nxResponse));
        // NODATA: SOA TTL 30 < MINIMUM 3600 -> 30
        Message nodata = query("www.example.test.", Type.AAAA, 8);
        Message nodataResponse = response(nodata, Rcode.NOERROR);
        nodataResponse.addRecord(soa(30, 3600), Section.AUTHORITY);
        assertTrue(cache.put(CacheKey.of(nodata), nodataResponse));
        assertEquals(2, cache.denialEntries());

        Message nxHit = cache.lookup(CacheKey.of(nx)).render(nx, now.get());
        assertEquals(Rcode.NXDOMAIN, nxHit.getRcode());
        assertEquals(60, nxHit.getSection(Section.AUTHORITY).get(0).getTTL(), "the SOA carries the negative TTL");
        Message nodataHit = cache.lookup(CacheKey.of(nodata)).render(nodata, now.get());
        assertEquals(Rcode.NOERROR, nodataHit.getRcode());
        assertTrue(nodataHit.getSection(Section.ANSWER).isEmpty());
        assertEquals(30, nodataHit.getSection(Section.AUTHORITY).get(0).getTTL());
        assertEquals(2, cache.denialHits());

        advanceSeconds(30);
        assertNull(cache.lookup(CacheKey.of(nodata)), "NODATA expired after 30 s");
        assertNotNull(cache.lookup(CacheKey.of(nx)));
        advanceSeconds(30);
        assertNull(cache.lookup(CacheKey.of(nx)), "NXDOMAIN expired after 60 s");
    }

    @Test
    void negativeAnswerWithoutSoaIsNotCached() {
        DnsCache cache = cache(CacheSettings.defaults());
        Message q = query("nope.example.test.", Type.A, 7);
        assertFalse(cache.put(CacheKey.of(q), response(q, Rcode.NXDOMAIN)));
        assertEquals(0, cache.size());
    }

    @Test
    void ttlCapsApply() throws Exception {
        DnsCache cache = cache(CacheSettings.defaults().withTtlCaps(10, 100, 20));
        Message q = query("www.example.test.", Type.A, 1);
        cache.put(CacheKey.of(q), response(q, Rcode.NOERROR, a(WWW, 86400, "192.0.2.1")));
        assertEquals(100, cache.lookup(CacheKey.of(q)).render(q, now.get()).getSection(Section.ANSWER).get(0).getTTL());

        Message low = query("low.example.test.", Type.A, 1);
        cache.put(CacheKey.of(low), response(low, Rcode.NOERROR, a(low.getQuestion().getName(), 0, "192.0.2.9")));
        assertEquals(10, cache.lookup(CacheKey.of(low)).render(low, now.get()).getSection(Section.ANSWER).get(0).getTTL(),
                "min-ttl lifts even TTL 0");

        Message nx = query("nope.example.test.", Type.A, 7);
        Message nxResponse = response(nx, Rcode.NXDOMAIN);
        nxResponse.addRecord(soa(3600, 3600), Section.AUTHORITY);
        cache.put(CacheKey.of(nx), nxResponse);
        assertEquals(20, cache.lookup(CacheKey.of(nx)).render(nx, now.get()).getSection(Section.AUTHORITY).get(0).getTTL(),
                "negative-max-ttl caps the denial TTL");
    }

    @Test
    void zeroTtlIsNotCachedByDefault() throws Exception {
        DnsCache cache = cache(CacheSettings.defaults());
        Message q = query("www.example.test.", Type.A, 1);
        assertFalse(cache.put(CacheKey.of(q), response(q, Rcode.NOERROR, a(WWW, 0, "192.0.2.1"))));
    }

    @Test
    void lruEvictsTheLeastRecentlyUsed() throws Exception {
        DnsCache cache = cache(CacheSettings.defaults().withMaxEntries(2));
        Message qa = query("a.example.test.", Type.A, 1);
        Message qb = query("b.example.test.", Type.A, 1);
        Message qc = query("c.example.test.", Type.A, 1);
        cache.put(CacheKey.of(qa), response(qa, Rcode.NOERROR, a(qa.getQuestion().getName(), 300, "192.0.2.1")));
        cache.put(CacheKey.of(qb), response(qb, Rcode.NOERROR, a(qb.getQuestion().getName(), 300, "192.0.2.2")));
        assertNotNull(cache.lookup(CacheKey.of(qa))); // a is now more recent than b
        cache.put(CacheKey.of(qc), response(qc, Rcode.NOERROR, a(qc.getQuestion().getName(), 300, "192.0.2.3")));
        assertEquals(2, cache.size());
        assertNull(cache.lookup(CacheKey.of(qb)), "b was least recently used");
        assertNotNull(cache.lookup(CacheKey.of(qa)));
        assertNotNull(cache.lookup(CacheKey.of(qc)));
    }

    @Test
    void segmentedCacheStaysBounded() throws Exception {
        DnsCache cache = cache(CacheSettings.defaults().withMaxEntries(4096));
        for (int i = 0; i < 10_000; i++) {
            Message q = query("n" + i + ".example.test.", Type.A, 1);
            cache.put(CacheKey.of(q), response(q, Rcode.NOERROR, a(q.getQuestion().getName(), 300, "192.0.2.1")));
        }
        assertEquals(4096, cache.size());
        Message last = query("n9999.example.test.", Type.A, 1);
        assertNotNull(cache.lookup(CacheKey.of(last)), "the most recent entry survives");
    }

    @Test
    void truncatedAndRefusedAreNeverCached() throws Exception {
        DnsCache cache = cache(CacheSettings.defaults());
        Message q = query("www.example.test.", Type.A, 1);
        Message tc = response(q, Rcode.NOERROR, a(WWW, 300, "192.0.2.1"));
        tc.getHeader().setFlag(Flags.TC);
        assertFalse(cache.put(CacheKey.of(q), tc));
        assertFalse(cache.put(CacheKey.of(q), response(q, Rcode.REFUSED)));
        assertEquals(0, cache.size());
    }

    @Test
    void servfailIsCachedForAtMostFiveSecondsAndNeverServedStale() {
        DnsCache cache = cache(CacheSettings.defaults());
        Message q = query("broken.example.test.", Type.A, 1);
        assertTrue(cache.put(CacheKey.of(q), response(q, Rcode.SERVFAIL)));
        assertEquals(Rcode.SERVFAIL, cache.lookup(CacheKey.of(q)).render(q, now.get()).getRcode());
        advanceSeconds(4.9);
        assertNotNull(cache.lookup(CacheKey.of(q)));
        advanceSeconds(0.1);
        assertNull(cache.lookup(CacheKey.of(q)));
        assertNull(cache.lookupStale(CacheKey.of(q)));
    }

    @Test
    void staleAnswersUseTtl30WithinTheWindowOnly() throws Exception {
        DnsCache cache = cache(CacheSettings.defaults().withServeStale(true, 600));
        Message q = cacheWwwFor60Seconds(cache);
        advanceSeconds(61);
        assertNull(cache.lookup(CacheKey.of(q)), "expired");
        CachedResponse stale = cache.lookupStale(CacheKey.of(q));
        assertNotNull(stale);
        Message answer = stale.renderStale(q, 30);
        assertEquals(30, answer.getSection(Section.ANSWER).get(0).getTTL());
        assertEquals(1, cache.servedStale());

        // an upstream SERVFAIL must not wipe the data serve-stale relies on
        assertFalse(cache.put(CacheKey.of(q), response(q, Rcode.SERVFAIL)));
        assertNotNull(cache.lookupStale(CacheKey.of(q)));

        advanceSeconds(600);
        assertNull(cache.lookupStale(CacheKey.of(q)), "past the stale window");
    }

    @Test
    void serveStaleOffDropsExpiredEntries() throws Exception {
        DnsCache cache = cache(CacheSettings.defaults().withServeStale(false, 3600));
        Message q = cacheWwwFor60Seconds(cache);
        advanceSeconds(60);
        assertNull(cache.lookup(CacheKey.of(q)));
        assertNull(cache.lookupStale(CacheKey.of(q)));
        assertEquals(0, cache.size());
    }

    @Test
    void dnssecOkIsPartOfTheKey() throws Exception {
        DnsCache cache = cache(CacheSettings.defaults());
        Message plain = query("www.example.test.", Type.A, 1);
        Message withDo = query("www.example.test.", Type.A, 1);
        withDo.addRecord(new OPTRecord(1232, 0, 0, ExtendedFlags.DO), Section.ADDITIONAL);
        cache.put(CacheKey.of(plain), response(plain, Rcode.NOERROR, a(WWW, 300, "192.0.2.1")));
        assertNull(cache.lookup(CacheKey.of(withDo)));
        assertNotNull(cache.lookup(CacheKey.of(plain)));
    }

    @Test
    void cnameChainAndOptAreHandled() throws Exception {
        DnsCache cache = cache(CacheSettings.defaults());
        Message q = query("alias.example.test.", Type.AAAA, 1);
        Message r = response(q, Rcode.NOERROR,
                new CNAMERecord(q.getQuestion().getName(), DClass.IN, 200, WWW),
                new AAAARecord(WWW, DClass.IN, 100, InetAddress.getByName("2001:db8::1")));
        r.addRecord(new OPTRecord(4096, 0, 0), Section.ADDITIONAL);
        cache.put(CacheKey.of(q), r);
        advanceSeconds(50);
        Message hit = cache.lookup(CacheKey.of(q)).render(q, now.get());
        assertNull(hit.getOPT(), "the upstream's OPT is hop-by-hop and not replayed");
        assertEquals(150, hit.getSection(Section.ANSWER).get(0).getTTL());
        assertEquals(50, hit.getSection(Section.ANSWER).get(1).getTTL());
        assertArrayEquals(InetAddress.getByName("2001:db8::1").getAddress(),
                ((AAAARecord) hit.getSection(Section.ANSWER).get(1)).getAddress().getAddress());
    }
}
