package io.meshdns.dns.snapshot;

import org.xbill.DNS.Name;
import org.xbill.DNS.Record;

import java.util.List;
import java.util.Map;

/**
 * A change to some owner names of one zone, from a source that knows exactly which names it touched
 * (the discovery feed after a delta). Each listed owner gets the listed records as its whole content
 * from that source; an empty list removes the owner. The apex owner carries the zone's SOA.
 *
 * @param origin the authoritative zone's apex, or null for the non-authoritative overlay
 * @param owners owner name → its complete new records
 */
public record ZonePatch(Name origin, Map<Name, List<Record>> owners) {
    public ZonePatch {
        owners = Map.copyOf(owners);
    }

    public boolean overlay() {
        return origin == null;
    }
}
