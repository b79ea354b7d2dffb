package io.meshdns.dns.snapshot;

import org.xbill.DNS.Name;
import org.xbill.DNS.Record;

import java.util.List;

/**
 * The records one source holds for one zone. {@code origin} is the zone apex; the records include
 * exactly one SOA at the apex. {@code authoritative} is false for data that is answered but that
 * owns no zone (hosts files): such names answer with AA, but a miss falls through to the forwarder.
 */
public record ZoneContent(Name origin, List<Record> records, boolean authoritative) {
    public ZoneContent {
        records = List.copyOf(records);
    }
}
