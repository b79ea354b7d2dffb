package io.meshdns.dns.answer;

import io.meshdns.dns.snapshot.Snapshot;
import io.meshdns.dns.zonefile.HostsFileParser;
import io.meshdns.dns.zonefile.ZoneFileParser;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Answerer as a pure function: snapshot + query in, outcome out. No sockets, no Quarkus. */
class AnswererTest {
    private static final ClientInfo UDP = new ClientInfo("127.0.0.1", 40000, false, Transport.UDP);
    private static Snapshot snapshot;
    private final Answerer answerer = new Answerer(1232);

    @BeforeAll
    static void load() throws Exception {
        String zone = """
                $ORIGIN example.test.
                $TTL 300
                @        IN SOA ns.example.test. admin.example.test. 7 3600 600 86400 60
                @        IN NS  ns.example.test.
                ns       IN A   192.0.2.1
                a        IN A   192.0.2.2
                a        IN A   192.0.2.3
                c        IN CNAME a.example.test.
                deep.ent IN TXT "x"
                *.w      IN AAAA 2001:db8::1
                e.w      IN TXT "exists"
                *.chain  IN CNAME c.example.test.
                """;
        String inner = """
                $ORIGIN sub.example.test.
                @        IN SOA ns.sub.example.test. admin.sub.example.test. 1 3600 600 86400 5
                x        IN A 192.0.2.50
                """;
        snapshot = Snapshot.build(1, List.of(
                ZoneFileParser.parse("example.test.zone", zone),
                ZoneFileParser.parse("sub.zone", inner),
                HostsFileParser.parse("hosts", List.of("198.51.100.7 h.local"), 3600)));
    }

    private Outcome ask(String name, int type) throws Exception {
        return answerer.answer(snapshot, Message.newQuery(Record.newRecord(Name.fromString(name), type, DClass.IN)), UDP);
    }

    private Message answer(String name, int type) throws Exception {
        Outcome o = ask(name, type);
        return assertInstanceOf(Outcome.Answer.class, o).response();
    }

    /** name, type, rcode, answer count, authority type (or -), AA expected. */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
            "a.example.test.,            A,     NOERROR,  2, -,   true",
            "A.EXAMPLE.TEST.,            A,     NOERROR,  2, -,   true",
            "missing.example.test.,      A,     NXDOMAIN, 0, SOA, true",
            "a.example.test.,            MX,    NOERROR,  0, SOA, true",
            "ent.example.test.,          TXT,   NOERROR,  0, SOA, true",
            "c.example.test.,            A,     NOERROR,  3, -,   true",
            "c.example.test.,            CNAME, NOERROR,  1, -,   true",
            "q.w.example.test.,          AAAA,  NOERROR,  1, -,   true",
            "q.w.example.test.,          A,     NOERROR,  0, SOA, true",
            "e.w.example.test.,          AAAA,  NOERROR,  0, SOA, true",
            "x.e.w.example.test.,        AAAA,  NXDOMAIN, 0, SOA, true",
            "z.chain.example.test.,      A,     NOERROR,  4, -,   true",
            "x.sub.example.test.,        A,     NOERROR,  1, -,   true",
            "nope.sub.example.test.,     A,     NXDOMAIN, 0, SOA, true",
            "h.local.,                   A,     NOERROR,  1, -,   true",
            "h.local.,                   AAAA,  NOERROR,  0, -,   true",
            "7.100.51.198.in-addr.arpa., PTR,   NOERROR,  1, -,   true",
    })
    void table(String name, String type, String rcode, int answers, String authority, boolean aa) throws Exception {
        Message m = answer(name, Type.value(type));
        assertEquals(Rcode.value(rcode), m.getRcode());
        assertEquals(answers, m.getSection(Section.ANSWER).size(), m.toString());
        List<Record> auth = m.getSection(Section.AUTHORITY);
        if (authority.equals("-")) {
            assertTrue(auth.isEmpty(), m.toString());
        } else {
            assertEquals(Type.value(authority), auth.get(0).getType());
        }
        assertEquals(aa, m.getHeader().getFlag(Flags.AA));
    }

    @Test
    void aNameUnderAWildcardEntBlocksNothingButAnExistingNameDoes() throws Exception {
        // x.e.w: closest encloser is e.w, which exists and has no "*" child: NXDOMAIN (RFC 4592 4.)
        assertEquals(Rcode.NXDOMAIN, answer("x.e.w.example.test.", Type.AAAA).getRcode());
    }

    @Test
    void negativeSoaTtlIsTheMinimumOfTtlAndMinimum() throws Exception {
        assertEquals(60, answer("missing.example.test.", Type.A).getSection(Section.AUTHORITY).get(0).getTTL());
        assertEquals(5, answer("nope.sub.example.test.", Type.A).getSection(Section.AUTHORITY).get(0).getTTL());
    }

    @Test
    void longestMatchingZoneWins() throws Exception {
        Message m = answer("nope.sub.example.test.", Type.A);
        assertEquals(Name.fromString("sub.example.test."), m.getSection(Section.AUTHORITY).get(0).getName());
    }

    @Test
    void namesOutsideEverythingAreForwarded() throws Exception {
        assertInstanceOf(Outcome.Forward.class, ask("www.example.org.", Type.A));
        assertInstanceOf(Outcome.Forward.class, ask("other.local.", Type.A), "hosts data owns no zone");
    }

    @Test
    void ownerNamesEchoTheQuestionCase() throws Exception {
        Message m = answer("Q.W.Example.TEST.", Type.AAAA);
        assertEquals("Q.W.Example.TEST.", m.getSection(Section.ANSWER).get(0).getName().toString());
    }

    @Test
    void ednsAndBadvers() throws Exception {
        Message q = Message.newQuery(Record.newRecord(Name.fromString("a.example.test."), Type.A, DClass.IN));
        q.addRecord(new OPTRecord(4096, 0, 0), Section.ADDITIONAL);
        Message ok = ((Outcome.Answer) answerer.answer(snapshot, q, UDP)).response();
        assertEquals(1232, ok.getOPT().getPayloadSize());
        Message v1 = Message.newQuery(Record.newRecord(Name.fromString("a.example.test."), Type.A, DClass.IN));
        v1.addRecord(new OPTRecord(4096, 0, 1), Section.ADDITIONAL);
        Message bad = ((Outcome.Answer) answerer.answer(snapshot, v1, UDP)).response();
        assertEquals(Rcode.BADVERS, bad.getRcode());
    }

    @Test
    void transfersAreFormerrOverUdpAndRefusedOverTcpWithoutAHandler() throws Exception {
        Message axfr = Message.newQuery(Record.newRecord(Name.fromString("example.test."), Type.AXFR, DClass.IN));
        assertEquals(Rcode.FORMERR, ((Outcome.Answer) answerer.answer(snapshot, axfr, UDP)).response().getRcode());
        ClientInfo tcp = new ClientInfo("127.0.0.1", 1, false, Transport.TCP);
        assertEquals(Rcode.REFUSED, ((Outcome.Answer) answerer.answer(snapshot, axfr, tcp)).response().getRcode());
    }

    @Test
    void zoneLabelIsReportedForMetrics() throws Exception {
        assertEquals("sub.example.test.", ((Outcome.Answer) ask("x.sub.example.test.", Type.A)).zone());
        assertEquals(".", ((Outcome.Answer) ask("h.local.", Type.A)).zone());
        assertFalse(answer("h.local.", Type.A).getHeader().getFlag(Flags.TC));
    }
}
