package io.meshdns.exposure.provider.rfc2136;

import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.plan.Changes;
import io.meshdns.exposure.provider.ProviderException;
import io.meshdns.exposure.provider.RecordLevelProvider;
import io.meshdns.exposure.provider.RecordOp;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.jboss.logging.Logger;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.TSIG;
import org.xbill.DNS.Type;
import org.xbill.DNS.Update;
import org.xbill.DNS.ZoneTransferIn;

/**
 * RFC 2136 provider (BIND9, Knot, meshdns dns-service): reads the zones by AXFR and writes them by
 * UPDATE, both TSIG-signed when a key is configured.
 *
 * <p>Reading: dnsjava's ZoneTransferIn verifies a multi-message AXFR with TSIG.StreamVerifier, which
 * follows RFC 8945 5.3.1 (only the first and last message, and one in every 100, must be signed),
 * so a Knot AXFR split over many messages verifies (ExternalDNS bug #6732). Every type is read back,
 * SRV and MX included, unlike ExternalDNS's rfc2136 provider.
 *
 * <p>Incremental reads: before each AXFR the zone's SOA serial is asked for (one small signed query);
 * when it equals the serial of our last transfer and we have not written to the zone since, the
 * records of that transfer are reused and no transfer is made. When it moved (someone else's change,
 * or our own UPDATE), an IXFR (RFC 1995) from our serial is asked first and its diff applied to our
 * copy; a server without history from that serial answers with the whole zone, which is used as is,
 * and an error, or a diff that does not start at our serial, falls back to AXFR.
 *
 * <p>Writing: one UPDATE message per zone carries a whole batch; it is split only when it would
 * exceed 64 KiB (the TCP message limit), and never inside one operation, so an RRset replace
 * (delete RRset + add) is always atomic. The response's rcode and TSIG are both checked. An
 * operation that cannot be sent at all (no configured zone holds the name, a CNAME at a zone apex,
 * an RRset bigger than one message, a value the type cannot hold) and an UPDATE the server refuses
 * are reported as {@link ProviderException#rejected() rejected}, so the caller can publish the rest.
 *
 * <p>TTL: a record without one gets {@code defaultTtl} (ExternalDNS's rfc2136 writes 0), and no
 * record is written below {@code minTtl} (ExternalDNS's --rfc2136-min-ttl, a floor).
 *
 * <p>Over 400 lines because reading and writing share one piece of state, each zone's cache (the serial of our
 * last transfer and whether we have written since): a write marks it, the next read decides from it between no
 * transfer, IXFR and AXFR. The record encoding both use is apart ({@link RecordWire}).
 */
public final class Rfc2136Provider implements RecordLevelProvider {

    private static final Logger LOG = Logger.getLogger(Rfc2136Provider.class);
    /** Leave room for the header, zone section and TSIG record under the 65535-byte TCP limit. */
    static final int MAX_UPDATE_BYTES = 65535 - 1024;

    /** @param batchChangeSize at most this many operations per UPDATE message (besides the 64 KiB limit) */
    public record Settings(String host, int port, List<String> zones, Optional<TSIG> tsig, Duration timeout,
                           long defaultTtl, long minTtl, int batchChangeSize) {
        public Settings(String host, int port, List<String> zones, Optional<TSIG> tsig, Duration timeout, long defaultTtl) {
            this(host, port, zones, tsig, timeout, defaultTtl, 0);
        }

        public Settings(String host, int port, List<String> zones, Optional<TSIG> tsig, Duration timeout, long defaultTtl,
                        long minTtl) {
            this(host, port, zones, tsig, timeout, defaultTtl, minTtl, Integer.MAX_VALUE);
        }
    }

    private final Settings settings;
    private final List<Name> zones;
    private int lastUpdateMessages;
    private int lastTransfers;
    private long lastReadBytes;
    /** Per zone: the SOA serial of our last transfer and its records; marked written when we send an UPDATE. */
    private final Map<Name, ZoneCache> cache = new HashMap<>();

    private final Map<String, AtomicLong> zoneReads = Map.of("ixfr", new AtomicLong(), "axfr", new AtomicLong(), "cached", new AtomicLong());

    /** @param written we sent an UPDATE since: the records are the server's at {@code serial}, but no longer now */
    private record ZoneCache(long serial, List<Record> records, boolean written) {
    }

    public Rfc2136Provider(Settings settings) {
        this.settings = settings;
        if (settings.zones().isEmpty()) {
            throw new IllegalArgumentException("meshdns.exposure.rfc2136.zones: at least one zone is required");
        }
        this.zones = settings.zones().stream().map(RecordWire::absolute).toList();
    }

    @Override
    public String describe() {
        return "rfc2136 " + settings.host() + ":" + settings.port();
    }

    /** How many UPDATE messages the last {@link #apply} sent (benchmarks and tests). */
    public int lastUpdateMessages() {
        return lastUpdateMessages;
    }

    /** DNS message bytes the last {@link #records} received: the SOA answers plus any AXFR (record wire size). */
    public long lastReadBytes() {
        return lastReadBytes;
    }

    /** How many AXFRs the last {@link #records} made (0 when every zone's serial was unchanged). */
    public int lastTransfers() {
        return lastTransfers;
    }

    /** Zone reads by kind since this provider was built: {@code ixfr}, {@code axfr}, {@code cached} (serial unchanged). */
    public long zoneReads(String kind) {
        AtomicLong n = zoneReads.get(kind);
        return n == null ? 0 : n.get();
    }

    @Override
    public Map<String, Long> zoneReadCounts() {
        var m = new java.util.TreeMap<String, Long>();
        zoneReads.forEach((k, v) -> m.put(k, v.get()));
        return m;
    }

    /**
     * The records dnsjava can write back. One it reads but cannot write (a WKS with an empty service bitmap, found by
     * ZoneTransferFuzz) would fail the whole pass at its first use: it is none of ours, so it is left out, not fatal.
     */
    private static List<Record> writable(Name zone, List<Record> records) {
        List<Record> out = null;
        for (int i = 0; i < records.size(); i++) {
            Record r = records.get(i);
            try {
                r.toWire(Section.ANSWER);
                if (out != null) out.add(r);
            } catch (RuntimeException e) {
                LOG.debugf("zone %s: skipping %s %s, which cannot be written back (%s)", zone, r.getName(), Type.string(r.getType()), e);
                if (out == null) out = new ArrayList<>(records.subList(0, i));
            }
        }
        return out == null ? records : out;
    }

    @Override
    public synchronized List<Endpoint> records() throws ProviderException {
        var grouped = new LinkedHashMap<String, List<Record>>();
        lastTransfers = 0;
        lastReadBytes = 0;
        for (Name zone : zones) {
            Optional<Long> serial = serial(zone);
            ZoneCache cached = cache.get(zone);
            List<Record> zoneRecords;
            if (cached != null && !cached.written() && serial.isPresent() && serial.get() == cached.serial()) {
                zoneRecords = cached.records();
                zoneReads.get("cached").incrementAndGet();
            } else {
                lastTransfers++;
                zoneRecords = null;
                // IXFR (RFC 1995) from the serial of our copy; only when the serial moved, else the server would
                // answer "up to date" although we wrote to the zone (a server that does not bump it on UPDATE)
                if (cached != null && serial.isPresent() && serial.get() != cached.serial()) {
                    zoneRecords = incremental(zone, cached);
                }
                if (zoneRecords == null) {
                    zoneRecords = transfer(zone);
                    zoneReads.get("axfr").incrementAndGet();
                    for (Record r : zoneRecords) lastReadBytes += r.toWire(Section.ANSWER).length;
                }
                long transferred = zoneRecords.stream().filter(r -> r.getType() == Type.SOA).mapToLong(r -> ((org.xbill.DNS.SOARecord) r).getSerial()).findFirst().orElse(-1);
                if (transferred >= 0) cache.put(zone, new ZoneCache(transferred, zoneRecords, false));
                else cache.remove(zone);
            }
        for (Record r : zoneRecords) {
                if (r.getType() == Type.SOA) continue;
                grouped.computeIfAbsent(r.getName().toString().toLowerCase() + " " + r.getType(), k -> new ArrayList<>()).add(r);
            }
        }
        var out = new ArrayList<Endpoint>(grouped.size());
        for (List<Record> rrset : grouped.values()) {
            Record first = rrset.get(0);
            var targets = new ArrayList<String>(rrset.size());
            long ttl = Long.MAX_VALUE;
            for (Record r : rrset) {
                targets.add(RecordWire.targetOf(r));
                ttl = Math.min(ttl, r.getTTL());
            }
            try {
                out.add(new Endpoint(first.getName().toString(), Type.string(first.getType()), targets, ttl, Map.of(), ""));
            } catch (IllegalArgumentException e) {
                LOG.debugf("skipping RRset %s %s that does not fit the endpoint model: %s", first.getName(), Type.string(first.getType()), e.getMessage());
            }
        }
        return out;
    }

    /**
     * Our cached copy of the zone brought up to date by IXFR, or null when the server answers with a
     * full transfer we cannot use as a diff, an error, or a diff that does not start at our serial
     * (the caller then makes an AXFR). A full AXFR-style answer to the IXFR is used as it is.
     */
    private List<Record> incremental(Name zone, ZoneCache cached) {
        ZoneTransferIn xfr = ZoneTransferIn.newIXFR(zone, cached.serial(), false,
                new InetSocketAddress(settings.host(), settings.port()), settings.tsig().orElse(null));
        xfr.setTimeout(settings.timeout());
        try {
            xfr.run();
        } catch (Exception e) {
            LOG.debugf("IXFR of %s from serial %d failed (%s): falling back to AXFR", zone, cached.serial(), e.getMessage());
            return null;
        }
        if (xfr.isAXFR()) {
            // the server had no history from our serial and sent the whole zone instead (RFC 1995 section 4)
            List<Record> full = writable(zone, List.copyOf(xfr.getAXFR()));
            for (Record r : full) lastReadBytes += r.toWire(Section.ANSWER).length;
            zoneReads.get("axfr").incrementAndGet();
            return full;
        }
        if (xfr.isCurrent()) {
            zoneReads.get("ixfr").incrementAndGet();
            return cached.records();
        }
        var zoneNow = new java.util.LinkedHashSet<Record>(cached.records());
        long at = cached.serial();
        for (ZoneTransferIn.Delta delta : xfr.getIXFR()) {
            if (delta.start != at) {
                LOG.debugf("IXFR of %s: delta from serial %d where our copy is at %d: falling back to AXFR", zone, delta.start, at);
                return null;
            }
            for (Record r : writable(zone, delta.deletes)) {
                lastReadBytes += r.toWire(Section.ANSWER).length;
                zoneNow.remove(r);
            }
            for (Record r : writable(zone, delta.adds)) {
                lastReadBytes += r.toWire(Section.ANSWER).length;
                zoneNow.remove(r); // a TTL change is a delete and an add of an equal record
                zoneNow.add(r);
            }
            at = delta.end;
        }
        zoneReads.get("ixfr").incrementAndGet();
        // SOA first, as an AXFR lists it
        var out = new ArrayList<Record>(zoneNow.size());
        zoneNow.stream().filter(r -> r.getType() == Type.SOA).forEach(out::add);
        zoneNow.stream().filter(r -> r.getType() != Type.SOA).forEach(out::add);
        return List.copyOf(out);
    }

    private List<Record> transfer(Name zone) throws ProviderException {
        ZoneTransferIn xfr = ZoneTransferIn.newAXFR(zone,
                new InetSocketAddress(settings.host(), settings.port()), settings.tsig().orElse(null));
        xfr.setTimeout(settings.timeout());
        try {
            xfr.run();
        } catch (Exception e) {
            throw new ProviderException("AXFR of " + zone + " from " + settings.host() + ":" + settings.port()
                    + " failed: " + e.getMessage(), e);
        }
        return writable(zone, List.copyOf(xfr.getAXFR()));
    }

    /** The zone's SOA serial as the server says now; empty when it does not answer one (then we transfer). */
    private Optional<Long> serial(Name zone) {
        try {
            SimpleResolver resolver = new SimpleResolver(new InetSocketAddress(settings.host(), settings.port()));
            resolver.setTimeout(settings.timeout());
            settings.tsig().ifPresent(resolver::setTSIGKey);
            Message response = resolver.send(Message.newQuery(Record.newRecord(zone, Type.SOA, DClass.IN)));
            lastReadBytes += response.toWire().length;
            if (response.getRcode() != Rcode.NOERROR || (settings.tsig().isPresent() && !response.isVerified())) {
                return Optional.empty();
            }
            for (Record r : response.getSection(Section.ANSWER)) {
                if (r instanceof org.xbill.DNS.SOARecord soa && soa.getName().equals(zone)) return Optional.of(soa.getSerial());
            }
        } catch (Exception e) {
            LOG.debugf("SOA query for %s failed (%s): transferring the zone", zone, e.getMessage());
        }
        return Optional.empty();
    }

    /** RRset-level changes as UPDATE operations: create and update replace the RRset, delete removes it. */
    @Override
    public void apply(Changes changes) throws ProviderException {
        var ops = new ArrayList<RecordOp>();
        changes.create().forEach(e -> ops.add(new RecordOp.ReplaceRRset(e)));
        changes.updateNew().forEach(e -> ops.add(new RecordOp.ReplaceRRset(e)));
        changes.delete().forEach(e -> ops.add(new RecordOp.DeleteRRset(e)));
        applyRecordOps(ops);
    }

    /** Record-level operations (the registry's multi-owner writes). */
    public void apply(List<RecordOp> ops) throws ProviderException {
        applyRecordOps(ops);
    }

    @Override
    public void applyRecordOps(List<RecordOp> ops) throws ProviderException {
        applyGroups(ops.stream().map(List::of).toList());
    }

    /**
     * One UPDATE per zone and batch; a group (an RRset and its claim) is never split over two
     * messages unless it alone exceeds one, and {@code batchChangeSize} counts groups (ExternalDNS
     * counts changes).
     */
    @Override
    public synchronized void applyGroups(List<List<RecordOp>> groups) throws ProviderException {
        var byZone = new LinkedHashMap<Name, List<List<Map.Entry<RecordOp, List<Record>>>>>();
        for (List<RecordOp> group : groups) {
            var parts = new LinkedHashMap<Name, List<Map.Entry<RecordOp, List<Record>>>>();
            for (RecordOp op : group) {
                String name = op.endpoint().dnsName();
                Name zone = zoneOf(name).orElseThrow(() -> ProviderException.rejected("no configured zone contains " + name));
                if (op.endpoint().recordType().equals("CNAME") && RecordWire.absolute(name).equals(zone) && !(op instanceof RecordOp.DeleteRRset)
                        && !(op instanceof RecordOp.DeleteRecords)) {
                    throw ProviderException.rejected("CNAME at the apex of zone " + zone + " (" + name + ") is not allowed: the apex holds SOA and NS");
                }
                parts.computeIfAbsent(zone, z -> new ArrayList<>()).add(Map.entry(op, RecordWire.records(op, settings.defaultTtl(), settings.minTtl())));
            }
            parts.forEach((zone, part) -> byZone.computeIfAbsent(zone, z -> new ArrayList<>()).add(part));
        }
        int sent = 0;
        for (var entry : byZone.entrySet()) {
            int empty = 12 + entry.getKey().length() + 4;
            var batch = new UpdateBatch(entry.getKey(), empty);
            // whatever happens next, our copy of the zone is no longer the server's; it stays the base of the next IXFR
            cache.computeIfPresent(entry.getKey(), (z, c) -> new ZoneCache(c.serial(), c.records(), true));
            for (var group : entry.getValue()) {
                int groupSize = 0;
                for (var op : group) {
                    int opSize = op.getValue().stream().mapToInt(r -> r.toWire(Section.UPDATE).length).sum();
                    if (opSize + empty > MAX_UPDATE_BYTES) {
                        throw ProviderException.rejected(op.getKey().endpoint().dnsName() + " " + op.getKey().endpoint().recordType()
                                + ": " + op.getValue().size() + " records (" + opSize + " bytes) do not fit in one UPDATE message");
                    }
                    groupSize += opSize;
                }
                if (groupSize + empty <= MAX_UPDATE_BYTES) {
                    if (batch.size + groupSize > MAX_UPDATE_BYTES || batch.groups >= settings.batchChangeSize()) sent += batch.flush();
                    for (var op : group) batch.add(op.getKey(), op.getValue());
                } else { // a group bigger than one message: operation by operation, each still whole
                    for (var op : group) {
                        int opSize = op.getValue().stream().mapToInt(r -> r.toWire(Section.UPDATE).length).sum();
                        if (batch.size + opSize > MAX_UPDATE_BYTES) sent += batch.flush();
                        batch.add(op.getKey(), op.getValue());
                    }
                }
                batch.groups++;
            }
            sent += batch.flush();
        }
        lastUpdateMessages = sent;
    }

    /** The UPDATE message being filled for one zone. */
    private final class UpdateBatch {
        private final Name zone;
        private final int empty;
        private Update update;
        private int size;
        private int groups;

        UpdateBatch(Name zone, int empty) {
            this.zone = zone;
            this.empty = empty;
            reset();
        }

        private void reset() {
            update = new Update(zone);
            size = empty;
            groups = 0;
        }

        void add(RecordOp op, List<Record> recs) {
            RecordWire.add(update, op, recs);
            size += recs.stream().mapToInt(r -> r.toWire(Section.UPDATE).length).sum();
        }

        /** Sends what is in the message, if anything; returns the number of messages sent. */
        int flush() throws ProviderException {
            if (size == empty) return 0;
            send(update);
            reset();
            return 1;
        }
    }

    private void send(Update update) throws ProviderException {
        if (update.getSection(Section.UPDATE).isEmpty()) return;
        Message response;
        try {
            SimpleResolver resolver = new SimpleResolver(new InetSocketAddress(settings.host(), settings.port()));
            resolver.setTCP(true);
            resolver.setTimeout(settings.timeout());
            settings.tsig().ifPresent(resolver::setTSIGKey);
            response = resolver.send(update);
        } catch (Exception e) {
            throw new ProviderException("UPDATE to " + describe() + " failed: " + e.getMessage(), e);
        }
        int rcode = response.getRcode();
        if (rcode != Rcode.NOERROR) {
            // NOTAUTH is a key or permission problem of the whole setup, not of this data
            boolean keyAccepted = response.getTSIG() == null || response.getTSIG().getError() == Rcode.NOERROR;
            if (rcode != Rcode.NOTAUTH && keyAccepted) {
                throw ProviderException.rejected("UPDATE of zone " + update.getQuestion().getName() + " at " + describe()
                        + " refused: " + Rcode.string(rcode));
            }
            throw new ProviderException("UPDATE of zone " + update.getQuestion().getName() + " at " + describe()
                    + " refused: " + Rcode.string(rcode) + (response.getTSIG() != null ? " (TSIG error " + Rcode.TSIGstring(response.getTSIG().getError()) + ")" : ""));
        }
        if (settings.tsig().isPresent() && !response.isVerified()) {
            throw new ProviderException("UPDATE response from " + describe() + " failed TSIG verification");
        }
    }

    Optional<Name> zoneOf(String dnsName) {
        Name n = RecordWire.absolute(dnsName);
        return zones.stream().filter(n::subdomain).max(Comparator.comparingInt(Name::labels));
    }
}
