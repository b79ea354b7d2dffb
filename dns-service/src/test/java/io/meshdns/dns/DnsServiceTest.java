package io.meshdns.dns;

import io.meshdns.dns.server.DnsServer;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.CNAMERecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.ExtendedFlags;
import org.xbill.DNS.Flags;
import org.xbill.DNS.HINFORecord;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Opcode;
import org.xbill.DNS.PTRRecord;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.TXTRecord;
import org.xbill.DNS.Type;

import java.io.IOException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Authoritative behaviour over real UDP and TCP sockets with dnsjava's SimpleResolver. Every test
 * runs against the one booted app (meshdns.dns.port=0, zones under src/test/resources/zones).
 */
@QuarkusTest
class DnsServiceTest {
    @Inject
    DnsServer server;

    DnsClient client;

    @BeforeEach
    void setUp() {
        assertTrue(server.boundPort() > 0, "bound port exposed");
        client = new DnsClient(server.boundPort());
    }

    private static List<String> rdata(Message m, int section) {
        return m.getSection(section).stream().map(r -> r.rdataToString()).toList();
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void answersARecordOverUdpAndTcp(boolean tcp) throws IOException {
        Message m = tcp ? client.tcp("registry.test.meshdns.", Type.A) : client.udp("registry.test.meshdns.", Type.A);
        assertEquals(Rcode.NOERROR, m.getRcode());
        assertTrue(m.getHeader().getFlag(Flags.AA), "authoritative");
        assertEquals(List.of("192.0.2.10"), rdata(m, Section.ANSWER));
    }

    @Test
    void echoesTheQuestionCaseInOwnerNames() throws IOException {
        Message m = client.udp("ReGiStRy.TeSt.MeShDnS.", Type.A);
        assertEquals("ReGiStRy.TeSt.MeShDnS.", m.getQuestion().getName().toString());
        assertEquals("ReGiStRy.TeSt.MeShDnS.", m.getSection(Section.ANSWER).get(0).getName().toString());
    }

    @Test
    void nxdomainCarriesTheSoaWithTheNegativeTtl() throws IOException {
        Message m = client.udp("nope.test.meshdns.", Type.A);
        assertEquals(Rcode.NXDOMAIN, m.getRcode());
        assertTrue(m.getHeader().getFlag(Flags.AA));
        assertTrue(m.getSection(Section.ANSWER).isEmpty());
        Record soa = m.getSection(Section.AUTHORITY).get(0);
        assertEquals(Type.SOA, soa.getType());
        assertEquals(30, soa.getTTL(), "min(SOA TTL 300, MINIMUM 30), RFC 2308");
    }

    @Test
    void nodataForAnExistingNameWithoutTheType() throws IOException {
        Message m = client.udp("registry.test.meshdns.", Type.MX);
        assertEquals(Rcode.NOERROR, m.getRcode());
        assertTrue(m.getSection(Section.ANSWER).isEmpty());
        assertEquals(Type.SOA, m.getSection(Section.AUTHORITY).get(0).getType());
    }

    @Test
    void emptyNonTerminalIsNodataNotNxdomain() throws IOException {
        Message m = client.udp("ent.test.meshdns.", Type.A);
        assertEquals(Rcode.NOERROR, m.getRcode(), "RFC 8020");
        assertTrue(m.getSection(Section.ANSWER).isEmpty());
        assertEquals(Type.SOA, m.getSection(Section.AUTHORITY).get(0).getType());
    }

    @Test
    void chasesCnamesInsideAndAcrossZones() throws IOException {
        Message www = client.udp("www.test.meshdns.", Type.A);
        assertEquals(List.of("registry.test.meshdns.", "192.0.2.10"), rdata(www, Section.ANSWER));
        Message alias2 = client.udp("alias2.test.meshdns.", Type.A);
        assertEquals(List.of("www.test.meshdns.", "registry.test.meshdns.", "192.0.2.10"), rdata(alias2, Section.ANSWER));
        Message cross = client.udp("cross.test.meshdns.", Type.A);
        assertEquals(List.of("target.other.meshdns.", "192.0.2.77"), rdata(cross, Section.ANSWER));
        Message external = client.udp("external.test.meshdns.", Type.A);
        assertEquals(Rcode.NOERROR, external.getRcode());
        assertEquals(List.of("www.example.org."), rdata(external, Section.ANSWER), "the client chases outside names");
        Message loop = client.udp("loop1.test.meshdns.", Type.A);
        assertEquals(Rcode.NOERROR, loop.getRcode());
        assertFalse(loop.getSection(Section.ANSWER).isEmpty());
    }

    @Test
    void cnameQueryReturnsTheCnameItself() throws IOException {
        Message m = client.udp("www.test.meshdns.", Type.CNAME);
        assertEquals(1, m.getSection(Section.ANSWER).size());
        assertEquals(Type.CNAME, m.getSection(Section.ANSWER).get(0).getType());
    }

    @Test
    void srvCarriesTargetAddressesAsGlue() throws IOException {
        Message m = client.udp("_registry._tcp.test.meshdns.", Type.SRV);
        assertEquals(List.of("0 10 5002 registry.test.meshdns."), rdata(m, Section.ANSWER));
        List<Record> additional = m.getSection(Section.ADDITIONAL);
        assertTrue(additional.stream().anyMatch(r -> r.getType() == Type.A && r.rdataToString().equals("192.0.2.10")));
        assertTrue(additional.stream().anyMatch(r -> r.getType() == Type.AAAA && r.rdataToString().equals("2001:db8:0:0:0:0:0:10")));
    }

    @Test
    void mxNsAndSoaAtTheApex() throws IOException {
        Message mx = client.udp("test.meshdns.", Type.MX);
        assertEquals(List.of("10 mail.test.meshdns."), rdata(mx, Section.ANSWER));
        assertEquals(List.of("192.0.2.25"), rdata(mx, Section.ADDITIONAL));
        Message ns = client.udp("test.meshdns.", Type.NS);
        assertEquals(List.of("ns1.test.meshdns."), rdata(ns, Section.ANSWER));
        assertEquals(List.of("192.0.2.53"), rdata(ns, Section.ADDITIONAL));
        Message soa = client.udp("test.meshdns.", Type.SOA);
        SOARecord record = (SOARecord) soa.getSection(Section.ANSWER).get(0);
        assertEquals(2026120201L, record.getSerial());
        assertEquals(300, record.getTTL(), "the SOA itself keeps its TTL in a positive answer");
    }

    @Test
    void txtAndPtr() throws IOException {
        Message txt = client.udp("registry.test.meshdns.", Type.TXT);
        assertEquals(List.of("nsm registry", "second string"), ((TXTRecord) txt.getSection(Section.ANSWER).get(0)).getStrings());
        Message ptr = client.udp("ptr.test.meshdns.", Type.PTR);
        assertEquals("registry.test.meshdns.", ((PTRRecord) ptr.getSection(Section.ANSWER).get(0)).getTarget().toString());
    }

    @Test
    void wildcardsFollowRfc4592() throws IOException {
        Message foo = client.udp("Foo.apps.test.meshdns.", Type.A);
        assertEquals(List.of("192.0.2.99"), rdata(foo, Section.ANSWER));
        assertEquals("Foo.apps.test.meshdns.", foo.getSection(Section.ANSWER).get(0).getName().toString(), "owner = qname");
        assertEquals(List.of("192.0.2.99"), rdata(client.udp("x.y.apps.test.meshdns.", Type.A), Section.ANSWER));
        assertEquals(List.of("192.0.2.98"), rdata(client.udp("real.apps.test.meshdns.", Type.A), Section.ANSWER));
        Message realTxt = client.udp("real.apps.test.meshdns.", Type.TXT);
        assertEquals(Rcode.NOERROR, realTxt.getRcode());
        assertTrue(realTxt.getSection(Section.ANSWER).isEmpty(), "an existing name never gets wildcard data");
        Message apps = client.udp("apps.test.meshdns.", Type.A);
        assertEquals(Rcode.NOERROR, apps.getRcode(), "the wildcard's parent is an empty non-terminal");
        assertTrue(apps.getSection(Section.ANSWER).isEmpty());
        Message fooAaaa = client.udp("foo.apps.test.meshdns.", Type.AAAA);
        assertEquals(Rcode.NOERROR, fooAaaa.getRcode());
        assertEquals(Type.SOA, fooAaaa.getSection(Section.AUTHORITY).get(0).getType());
        Message cn = client.udp("any.cn.test.meshdns.", Type.A);
        assertEquals(List.of("registry.test.meshdns.", "192.0.2.10"), rdata(cn, Section.ANSWER));
        assertEquals("any.cn.test.meshdns.", cn.getSection(Section.ANSWER).get(0).getName().toString());
    }

    @Test
    void delegationGivesAReferralWithGlue() throws IOException {
        Message m = client.udp("host.sub.test.meshdns.", Type.A);
        assertEquals(Rcode.NOERROR, m.getRcode());
        assertFalse(m.getHeader().getFlag(Flags.AA), "a referral is not authoritative");
        assertTrue(m.getSection(Section.ANSWER).isEmpty());
        assertEquals(List.of("ns.sub.test.meshdns."), rdata(m, Section.AUTHORITY));
        assertEquals(List.of("192.0.2.54"), rdata(m, Section.ADDITIONAL));
    }

    @Test
    void anyIsAnsweredWithOneSynthesizedHinfo() throws IOException {
        Message m = client.udp("registry.test.meshdns.", Type.ANY);
        assertEquals(1, m.getSection(Section.ANSWER).size());
        HINFORecord hinfo = (HINFORecord) m.getSection(Section.ANSWER).get(0);
        assertEquals("RFC8482", hinfo.getCPU());
        assertEquals(Rcode.NXDOMAIN, client.udp("nope.test.meshdns.", Type.ANY).getRcode());
    }

    @Test
    void refusesOtherClassesIncludingChaos() throws IOException {
        Message chaos = client.send(DnsClient.query("version.bind.", Type.TXT, DClass.CH), false);
        assertEquals(Rcode.REFUSED, chaos.getRcode());
        Message hs = client.send(DnsClient.query("registry.test.meshdns.", Type.A, DClass.HS), false);
        assertEquals(Rcode.REFUSED, hs.getRcode());
    }

    @Test
    void notImplementedForOtherOpcodes() throws IOException {
        Message query = DnsClient.query("test.meshdns.", Type.SOA, DClass.IN);
        query.getHeader().setOpcode(Opcode.STATUS);
        Message m = client.send(query, false);
        assertEquals(Rcode.NOTIMP, m.getRcode());
    }

    @Test
    void namesOutsideOurDataGoToTheForwarder() throws IOException {
        // The test upstream is a real Knot on loopback (KnotUpstreamResource); it is not authoritative here.
        Message m = client.udp("www.example.org.", Type.A);
        assertFalse(m.getHeader().getFlag(Flags.AA), "not ours: not authoritative");
        assertTrue(m.getSection(Section.ANSWER).isEmpty());
    }

    @Test
    void ednsIsEchoedWithOurPayloadSize() throws IOException {
        Message m = client.send(DnsClient.withEdns(DnsClient.query("registry.test.meshdns.", Type.A, DClass.IN), 4096, 0), false);
        OPTRecord opt = m.getOPT();
        assertNotNull(opt, "OPT echoed");
        assertEquals(1232, opt.getPayloadSize(), "clamped to meshdns.dns.edns.max-udp-payload");
        Message plain = client.udp("registry.test.meshdns.", Type.A);
        assertEquals(null, plain.getOPT(), "no OPT without one in the query");
        assertEquals(0, opt.getFlags() & ExtendedFlags.DO, "DO clear when the query's is clear");
    }

    @Test
    void theQuerysDoBitIsCopiedIntoOurOpt() throws IOException {
        // RFC 3225 section 3: the DO bit of the query MUST be copied in the response.
        Message query = DnsClient.query("registry.test.meshdns.", Type.A, DClass.IN);
        query.addRecord(new OPTRecord(1232, 0, 0, ExtendedFlags.DO), Section.ADDITIONAL);
        for (boolean tcp : new boolean[] {false, true}) {
            Message m = client.send(query, tcp);
            assertEquals(Rcode.NOERROR, m.getRcode());
            assertEquals(ExtendedFlags.DO, m.getOPT().getFlags() & ExtendedFlags.DO, "DO copied over " + (tcp ? "TCP" : "UDP"));
        }
    }

    @Test
    void badversForEdnsVersionOtherThanZero() throws IOException {
        Message m = client.send(DnsClient.withEdns(DnsClient.query("registry.test.meshdns.", Type.A, DClass.IN), 1232, 1), false);
        assertEquals(Rcode.BADVERS, m.getRcode());
        assertEquals(0, m.getOPT().getVersion());
        assertTrue(m.getSection(Section.ANSWER).isEmpty());
    }

    @Test
    void truncatesOverUdpWhenTheAnswerDoesNotFit() throws IOException {
        Message small = client.udp("big.test.meshdns.", Type.TXT);
        assertTrue(small.getHeader().getFlag(Flags.TC), "over 512 bytes without EDNS");
        assertTrue(small.toWire().length <= 512);
        Message edns = client.send(DnsClient.withEdns(DnsClient.query("big.test.meshdns.", Type.TXT, DClass.IN), 1232, 0), false);
        assertFalse(edns.getHeader().getFlag(Flags.TC));
        assertEquals(6, edns.getSection(Section.ANSWER).size());
        Message tcp = client.tcp("big.test.meshdns.", Type.TXT);
        assertFalse(tcp.getHeader().getFlag(Flags.TC));
        assertEquals(6, tcp.getSection(Section.ANSWER).size());
    }

    @Test
    void zoneTransfersAreNotServedOverUdp() throws IOException {
        // SimpleResolver always sends AXFR over TCP, so the UDP case goes out as raw bytes.
        byte[] udpReply = client.rawUdp(DnsClient.query("test.meshdns.", Type.AXFR, DClass.IN).toWire(), java.time.Duration.ofSeconds(10));
        assertEquals(Rcode.FORMERR, new Message(udpReply).getRcode());
        Message axfr = client.tcpPipelined(List.of(DnsClient.query("test.meshdns.", Type.AXFR, DClass.IN))).get(0);
        assertEquals(Rcode.REFUSED, axfr.getRcode(), "no transfer handler yet");
    }

    @Test
    void hostsFileNamesAnswerAuthoritatively() throws IOException {
        Message a = client.udp("hosty.local.", Type.A);
        assertTrue(a.getHeader().getFlag(Flags.AA));
        assertEquals(List.of("192.0.2.200"), rdata(a, Section.ANSWER));
        assertEquals(List.of("192.0.2.200"), rdata(client.udp("hosty-alias.local.", Type.A), Section.ANSWER));
        assertEquals(List.of("2001:db8:0:0:0:0:0:200"), rdata(client.udp("hosty.local.", Type.AAAA), Section.ANSWER));
        Message mx = client.udp("hosty.local.", Type.MX);
        assertEquals(Rcode.NOERROR, mx.getRcode(), "present with another type: NODATA");
        assertTrue(mx.getSection(Section.ANSWER).isEmpty());
        Message ptr = client.udp("200.2.0.192.in-addr.arpa.", Type.PTR);
        assertEquals(List.of("hosty.local."), rdata(ptr, Section.ANSWER));
        Message bad = client.udp("bad-address.local.", Type.A);
        assertFalse(bad.getHeader().getFlag(Flags.AA), "bad lines are skipped: the name is not ours");
        assertTrue(bad.getSection(Section.ANSWER).isEmpty(), "bad lines are skipped");
    }

    @Test
    void queryLogWritesOneCorednsStyleLinePerQuery() throws IOException {
        List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord record) {
                lines.add(record instanceof org.jboss.logmanager.ExtLogRecord ext ? ext.getFormattedMessage() : record.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        java.util.logging.Logger logger = java.util.logging.Logger.getLogger("meshdns.querylog");
        logger.addHandler(handler);
        try {
            client.udp("nope.test.meshdns.", Type.AAAA);
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5))
                    .until(() -> lines.stream().anyMatch(l -> l.contains("\"AAAA IN nope.test.meshdns. udp ")));
            String line = lines.stream().filter(l -> l.contains("nope.test.meshdns.")).findFirst().orElseThrow();
            assertTrue(line.matches("127\\.0\\.0\\.1:\\d+ - \\d+ \"AAAA IN nope\\.test\\.meshdns\\. udp \\d+ false 512\" NXDOMAIN qr,aa(,rd)? \\d+ \\d+\\.\\d{6}s"), line);
        } finally {
            logger.removeHandler(handler);
        }
    }

    @Test
    void aRecordTypeIsReallyA() throws IOException {
        Record r = client.udp("registry.test.meshdns.", Type.A).getSection(Section.ANSWER).get(0);
        assertTrue(r instanceof ARecord);
        assertEquals(Name.fromString("registry.test.meshdns."), r.getName());
        assertFalse(r instanceof CNAMERecord);
    }
}
