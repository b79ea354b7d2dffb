package io.meshdns.dns;

import io.meshdns.dns.server.DnsServer;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The same behaviours as {@link DnsServiceTest}, seen by Debian's {@code dig} (bind9-dnsutils):
 * one row per behaviour, over UDP and TCP. A row lists dig arguments, the expected status, flags
 * that must be set and must not be, and substrings each answer / authority / additional line must
 * contain (in order).
 */
@QuarkusTest
class DigConformanceTest {
    @Inject
    DnsServer server;

    record Row(String what, List<String> args, String status, List<String> flags, List<String> noFlags,
               List<String> answer, List<String> authority, List<String> additional) {
        @Override
        public String toString() {
            return what;
        }
    }

    private static Row row(String what, String args, String status, String flags, String noFlags,
                           String answer, String authority, String additional) {
        return new Row(what, List.of(args.split(" ")), status, split(flags), split(noFlags), split(answer, '|'),
                split(authority, '|'), split(additional, '|'));
    }

    private static List<String> split(String s) {
        return s.isEmpty() ? List.of() : List.of(s.split(" "));
    }

    private static List<String> split(String s, char sep) {
        return s.isEmpty() ? List.of() : Arrays.asList(s.split("\\" + sep));
    }

    static Stream<Arguments> rows() {
        List<Row> rows = List.of(
                row("A", "registry.test.meshdns A", "NOERROR", "qr aa", "tc", "IN\tA\t192.0.2.10", "", ""),
                row("AAAA", "registry.test.meshdns AAAA", "NOERROR", "qr aa", "", "2001:db8::10", "", ""),
                row("0x20 case echoed", "ReGiStRy.TeSt.MeShDnS A", "NOERROR", "aa", "", "ReGiStRy.TeSt.MeShDnS.", "", ""),
                row("NXDOMAIN + SOA with negative TTL", "nope.test.meshdns A", "NXDOMAIN", "aa", "", "", "30\tIN\tSOA", ""),
                row("NODATA + SOA", "registry.test.meshdns MX", "NOERROR", "aa", "", "", "IN\tSOA", ""),
                row("empty non-terminal is NODATA", "ent.test.meshdns A", "NOERROR", "aa", "", "", "IN\tSOA", ""),
                row("CNAME chased", "www.test.meshdns A", "NOERROR", "aa", "", "CNAME\tregistry.test.meshdns.|A\t192.0.2.10", "", ""),
                row("CNAME across zones", "cross.test.meshdns A", "NOERROR", "aa", "", "CNAME\ttarget.other.meshdns.|A\t192.0.2.77", "", ""),
                row("SRV with glue", "_registry._tcp.test.meshdns SRV", "NOERROR", "aa", "", "SRV\t0 10 5002 registry.test.meshdns.", "", "A\t192.0.2.10|AAAA\t2001:db8::10"),
                row("MX with additional", "test.meshdns MX", "NOERROR", "aa", "", "MX\t10 mail.test.meshdns.", "", "A\t192.0.2.25"),
                row("NS with glue", "test.meshdns NS", "NOERROR", "aa", "", "NS\tns1.test.meshdns.", "", "A\t192.0.2.53"),
                row("SOA", "test.meshdns SOA", "NOERROR", "aa", "", "SOA\tns1.test.meshdns. hostmaster.test.meshdns. 2026120201", "", ""),
                row("TXT", "registry.test.meshdns TXT", "NOERROR", "aa", "", "\"nsm registry\" \"second string\"", "", ""),
                row("PTR", "ptr.test.meshdns PTR", "NOERROR", "aa", "", "PTR\tregistry.test.meshdns.", "", ""),
                row("wildcard synthesized with qname owner", "Some.Thing.apps.test.meshdns A", "NOERROR", "aa", "", "Some.Thing.apps.test.meshdns.\t300\tIN\tA\t192.0.2.99", "", ""),
                row("no wildcard for an existing name", "real.apps.test.meshdns TXT", "NOERROR", "aa", "", "", "IN\tSOA", ""),
                row("referral below a delegation", "host.sub.test.meshdns A", "NOERROR", "", "aa", "", "NS\tns.sub.test.meshdns.", "A\t192.0.2.54"),
                row("ANY per RFC 8482", "registry.test.meshdns ANY", "NOERROR", "aa", "", "HINFO\t\"RFC8482\" \"\"", "", ""),
                row("CHAOS is refused", "version.bind TXT -c CH", "REFUSED", "qr", "aa", "", "", ""),
                row("EDNS BADVERS", "+edns=1 +noednsnegotiation registry.test.meshdns A", "BADVERS", "qr", "", "", "", ""),
                row("TC without EDNS", "+noedns +ignore big.test.meshdns TXT", "NOERROR", "qr aa tc", "", "", "", ""),
                row("no TC with EDNS 1232", "+edns=0 +bufsize=1232 big.test.meshdns TXT", "NOERROR", "aa", "tc", "0123|1123|2123|3123|4123|5123", "", ""),
                row("hosts file", "hosty.local A", "NOERROR", "aa", "", "A\t192.0.2.200", "", ""),
                row("hosts file PTR", "-x 192.0.2.200", "NOERROR", "aa", "", "PTR\thosty.local.", "", ""),
                row("not ours and no forwarder", "www.example.org A", "REFUSED", "qr", "aa", "", "", ""));
        return rows.stream().flatMap(r -> Stream.of(Arguments.of(r, "udp"), Arguments.of(r, "tcp")));
    }

    @ParameterizedTest(name = "{0} over {1}")
    @MethodSource("rows")
    void digSeesTheRfcBehaviour(Row row, String proto) throws Exception {
        if (proto.equals("tcp") && row.flags().contains("tc")) {
            return; // truncation is a UDP matter: over TCP the same query is answered in full (see the next row)
        }
        String[] args = row.args().toArray(String[]::new);
        if (proto.equals("tcp")) {
            args = Stream.concat(Stream.of("+tcp"), Arrays.stream(args)).toArray(String[]::new);
        }
        Dig.Result r = Dig.dig("127.0.0.1", server.boundPort(), args);
        String ctx = row.what() + " (" + proto + ")\n" + r.raw();
        assertEquals(row.status(), r.status(), ctx);
        row.flags().forEach(f -> assertTrue(r.hasFlag(f), "flag " + f + ": " + ctx));
        row.noFlags().forEach(f -> assertFalse(r.hasFlag(f), "no flag " + f + ": " + ctx));
        assertLines(row.answer(), r.answer(), ctx);
        assertLines(row.authority(), r.authority(), ctx);
        assertLines(row.additional(), r.additional().stream().filter(l -> !l.contains("OPT")).toList(), ctx);
    }

    private static void assertLines(List<String> expected, List<String> actual, String ctx) {
        assertEquals(expected.size(), actual.size(), "line count: " + ctx);
        for (int i = 0; i < expected.size(); i++) {
            String want = expected.get(i).replaceAll("\\s+", " ");
            String got = actual.get(i).replaceAll("\\s+", " ");
            assertTrue(got.contains(want), "'" + want + "' in '" + got + "': " + ctx);
        }
    }
}
