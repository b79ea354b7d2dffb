package io.meshdns.dns.zonefile;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.meshdns.dns.snapshot.ZoneContent;
import org.xbill.DNS.Record;

/**
 * The zone-file reader (dnsjava's master-file parser under {@link ZoneFileParser}) on arbitrary text after a
 * valid SOA line, or on arbitrary text alone: the only outcomes are a zone or a {@link ZoneFileException}; any
 * other throwable, or a zone that breaks the parser's own promises (one SOA, every record inside the zone), is a
 * finding. {@code $INCLUDE} is left out of the text (it reads other files: an operator's choice, not input).
 */
class ZoneFileFuzz {
    private static final String SOA = "$ORIGIN example.test.\n$TTL 300\n@ IN SOA ns1 hostmaster 1 7200 3600 1209600 300\n";

    @FuzzTest(maxExecutions = 1_000_000, maxDuration = "25m")
    void parse(FuzzedDataProvider data) {
        boolean withSoa = data.consumeBoolean();
        String text = data.consumeRemainingAsString();
        if (text.toUpperCase().contains("$INCLUDE")) return;
        ZoneContent zone;
        try {
            zone = ZoneFileParser.parse("fuzz.zone", withSoa ? SOA + text : text);
        } catch (ZoneFileException e) {
            return;
        }
        long soas = zone.records().stream().filter(r -> r.getType() == org.xbill.DNS.Type.SOA).count();
        if (soas != 1) throw new AssertionError("a zone with " + soas + " SOA records");
        for (Record r : zone.records()) {
            if (!r.getName().subdomain(zone.origin())) throw new AssertionError(r + " outside " + zone.origin());
            r.toWire(org.xbill.DNS.Section.ANSWER); // served as is: every record must encode
        }
    }
}
