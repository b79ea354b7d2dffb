package io.meshdns.dns.dynamic;

import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.Serial;
import org.xbill.DNS.Type;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * RFC 2136 sections 3.2 to 3.4 as a pure function: (zone version, UPDATE message) to (RCODE, next
 * version, the records removed and added). Nothing is applied unless every prerequisite holds and
 * every update RR passes the prescan, so a message is all or nothing. The caller checks the zone
 * section and TSIG first (section 3.1, RFC 8945).
 */
public final class UpdateProcessor {

    /** The outcome. With NOERROR and no change, {@code next} is the unchanged zone and nothing is journaled. */
    public record Result(int rcode, ZoneData next, List<Record> removed, List<Record> added) {
        public boolean changed() {
            return !removed.isEmpty() || !added.isEmpty();
        }

        static Result refuse(int rcode, ZoneData zone) {
            return new Result(rcode, zone, List.of(), List.of());
        }
    }

    private UpdateProcessor() {
    }

    public static Result apply(ZoneData zone, Message update) {
        try {
            return applyChecked(zone, update);
        } catch (RuntimeException e) {
            // dnsjava parses some records from the wire that it cannot encode again (found by fuzzing:
            // a WKS record with an empty port bitmap); such a message is malformed for us, not a server error.
            return Result.refuse(Rcode.FORMERR, zone);
        }
    }

    private static Result applyChecked(ZoneData zone, Message update) {
        int prereq = checkPrerequisites(zone, update.getSection(Section.PREREQ));
        if (prereq != Rcode.NOERROR) {
            return Result.refuse(prereq, zone);
        }
        List<Record> updates = withEmptyRdata(update.getSection(Section.UPDATE));
        if (updates == null) {
            return Result.refuse(Rcode.FORMERR, zone);
        }
        int prescan = prescan(zone.origin(), updates);
        if (prescan != Rcode.NOERROR) {
            return Result.refuse(prescan, zone);
        }
        ZoneData.Editor editor = zone.edit();
        Set<Name> touched = new LinkedHashSet<>();
        boolean soaSet = false;
        for (Record r : updates) {
            touched.add(r.getName());
            soaSet |= applyOne(editor, r);
        }
        ZoneData candidate = editor.build();
        List<Record> removed = new ArrayList<>();
        List<Record> added = new ArrayList<>();
        diff(zone, candidate, touched, removed, added);
        if (removed.isEmpty() && added.isEmpty()) {
            return new Result(Rcode.NOERROR, zone, List.of(), List.of());
        }
        if (!soaSet) {
            // Every successful change bumps the serial, so secondaries and caches see a new version.
            SOARecord old = zone.soa();
            SOARecord bumped = new SOARecord(old.getName(), DClass.IN, old.getTTL(), old.getHost(), old.getAdmin(),
                    Serial.increment(old.getSerial()), old.getRefresh(), old.getRetry(), old.getExpire(), old.getMinimum());
            ZoneData.Editor withSerial = candidate.edit();
            withSerial.replace(bumped);
            candidate = withSerial.build();
            touched.add(zone.origin());
            removed.clear();
            added.clear();
            diff(zone, candidate, touched, removed, added);
        }
        return new Result(Rcode.NOERROR, candidate, List.copyOf(removed), List.copyOf(added));
    }

    /**
     * An added record (class IN) with RDLENGTH 0 arrives from the wire without RDATA at all, the form
     * RFC 2136 uses for deletes; for types where empty RDATA is legal (NULL, unknown types, RFC 3597)
     * it is rebuilt as a record with empty RDATA so it can be served and journaled. Null when a type
     * cannot have empty RDATA (an A record of zero bytes): the message is malformed.
     */
    private static List<Record> withEmptyRdata(List<Record> updates) {
        List<Record> out = new ArrayList<>(updates.size());
        for (Record r : updates) {
            if (r.getDClass() == DClass.IN && Type.isRR(r.getType()) && r.rdataToWireCanonical().length == 0) {
                Record rebuilt = Record.newRecord(r.getName(), r.getType(), DClass.IN, r.getTTL(), new byte[0]);
                if (rebuilt == null) {
                    return null;
                }
                out.add(rebuilt);
            } else {
                out.add(r);
            }
        }
        return out;
    }

    /** Replays a journaled transaction: removals first, then additions. */
    public static ZoneData replay(ZoneData zone, List<Record> removed, List<Record> added) {
        ZoneData.Editor editor = zone.edit();
        removed.forEach(editor::remove);
        added.forEach(editor::add);
        return editor.build();
    }

    /** RFC 2136 3.2. */
    static int checkPrerequisites(ZoneData zone, List<Record> prerequisites) {
        Map<Name, Map<Integer, List<Record>>> valueDependent = new HashMap<>();
        for (Record r : prerequisites) {
            if (r.getTTL() != 0) {
                return Rcode.FORMERR;
            }
            Name name = r.getName();
            if (!name.subdomain(zone.origin())) {
                return Rcode.NOTZONE;
            }
            int type = r.getType();
            switch (r.getDClass()) {
                case DClass.ANY -> {
                    if (hasRdata(r)) {
                        return Rcode.FORMERR;
                    }
                    if (type == Type.ANY) {
                        if (!zone.exists(name)) {
                            return Rcode.NXDOMAIN;
                        }
                    } else if (zone.rrset(name, type).isEmpty()) {
                        return Rcode.NXRRSET;
                    }
                }
                case DClass.NONE -> {
                    if (hasRdata(r)) {
                        return Rcode.FORMERR;
                    }
                    if (type == Type.ANY) {
                        if (zone.exists(name)) {
                            return Rcode.YXDOMAIN;
                        }
                    } else if (!zone.rrset(name, type).isEmpty()) {
                        return Rcode.YXRRSET;
                    }
                }
                case DClass.IN -> {
                    if (!Type.isRR(type)) {
                        return Rcode.FORMERR;
                    }
                    valueDependent.computeIfAbsent(name, n -> new HashMap<>())
                            .computeIfAbsent(type, t -> new ArrayList<>()).add(r);
                }
                default -> {
                    return Rcode.FORMERR;
                }
            }
        }
        // Value-dependent: the RRset must exist and be exactly the set given (RDATA compared, TTL ignored).
        for (Map.Entry<Name, Map<Integer, List<Record>>> byName : valueDependent.entrySet()) {
            for (Map.Entry<Integer, List<Record>> byType : byName.getValue().entrySet()) {
                List<Record> existing = zone.rrset(byName.getKey(), byType.getKey());
                if (!sameSet(existing, byType.getValue())) {
                    return Rcode.NXRRSET;
                }
            }
        }
        return Rcode.NOERROR;
    }

    /** RFC 2136 3.4.1. */
    static int prescan(Name origin, List<Record> updates) {
        for (Record r : updates) {
            if (!r.getName().subdomain(origin)) {
                return Rcode.NOTZONE;
            }
            int type = r.getType();
            switch (r.getDClass()) {
                case DClass.IN -> {
                    // Stored only if the journal can replay it exactly: else a restart would lose it and
                    // every acknowledged update after it. A TTL above 2^31-1 is refused here too.
                    if (!Type.isRR(type) || JournalCodec.storable(r, origin) != null) {
                        return Rcode.FORMERR;
                    }
                }
                case DClass.ANY -> {
                    if (r.getTTL() != 0 || hasRdata(r) || (type != Type.ANY && !Type.isRR(type))) {
                        return Rcode.FORMERR;
                    }
                }
                case DClass.NONE -> {
                    if (r.getTTL() != 0 || !Type.isRR(type)) {
                        return Rcode.FORMERR;
                    }
                }
                default -> {
                    return Rcode.FORMERR;
                }
            }
        }
        return Rcode.NOERROR;
    }

    /** RFC 2136 3.4.2; returns true when the record set the SOA. */
    private static boolean applyOne(ZoneData.Editor zone, Record r) {
        Name name = r.getName();
        int type = r.getType();
        boolean apex = name.equals(zone.origin());
        switch (r.getDClass()) {
            case DClass.IN -> {
                if (type == Type.SOA) {
                    List<Record> current = zone.rrset(name, Type.SOA);
                    if (!apex || current.isEmpty()) {
                        return false; // an SOA anywhere but the apex is silently ignored
                    }
                    long serial = ((SOARecord) current.get(0)).getSerial();
                    if (Serial.compare(((SOARecord) r).getSerial(), serial) <= 0) {
                        return false; // 3.4.2.2: a serial that does not move forward is ignored
                    }
                    zone.replace(r);
                    return true;
                }
                Map<Integer, List<Record>> node = zone.node(name);
                if (type == Type.CNAME) {
                    if (node.keySet().stream().anyMatch(t -> t != Type.CNAME && !isDnssec(t))) {
                        return false; // 3.4.2.2: a CNAME cannot join other data
                    }
                    zone.replace(r);
                    return false;
                }
                if (node.containsKey(Type.CNAME) && !isDnssec(type)) {
                    return false; // other data cannot join a CNAME
                }
                zone.add(r);
            }
            case DClass.ANY -> {
                if (type == Type.ANY) {
                    for (Integer t : List.copyOf(zone.node(name).keySet())) {
                        if (!(apex && (t == Type.SOA || t == Type.NS))) {
                            zone.removeRRset(name, t);
                        }
                    }
                } else if (!(apex && (type == Type.SOA || type == Type.NS))) {
                    zone.removeRRset(name, type);
                }
            }
            case DClass.NONE -> {
                if (type == Type.SOA) {
                    return false;
                }
                if (apex && type == Type.NS) {
                    List<Record> ns = zone.rrset(name, Type.NS);
                    if (ns.size() == 1 && ZoneData.sameData(ns.get(0), r)) {
                        return false; // 3.4.2.4: never delete the zone's last NS
                    }
                }
                zone.remove(r);
            }
            default -> {
                // rejected by the prescan
            }
        }
        return false;
    }

    /** Collects what differs between two versions at the touched names (a TTL change counts as remove + add). */
    private static void diff(ZoneData before, ZoneData after, Set<Name> touched, List<Record> removed, List<Record> added) {
        for (Name name : touched) {
            Set<Integer> types = new HashSet<>();
            for (int t : typesAt(before, name)) {
                types.add(t);
            }
            for (int t : typesAt(after, name)) {
                types.add(t);
            }
            for (int type : types) {
                List<Record> old = before.rrset(name, type);
                List<Record> now = after.rrset(name, type);
                if (old == now) {
                    continue; // an RRset the editor did not copy is unchanged
                }
                // Hashed, so one change to a large RRset costs O(n), not O(n^2) comparisons.
                Set<DataAndTtl> oldKeys = keys(old);
                Set<DataAndTtl> nowKeys = keys(now);
                for (Record r : old) {
                    if (!nowKeys.contains(DataAndTtl.of(r))) {
                        removed.add(r);
                    }
                }
                for (Record r : now) {
                    if (!oldKeys.contains(DataAndTtl.of(r))) {
                        added.add(r);
                    }
                }
            }
        }
    }

    /** RDATA (canonical wire form) and TTL: what makes two records of one RRset the same for the journal. */
    private record DataAndTtl(java.nio.ByteBuffer rdata, long ttl) {
        static DataAndTtl of(Record r) {
            return new DataAndTtl(java.nio.ByteBuffer.wrap(r.rdataToWireCanonical()), r.getTTL());
        }
    }

    private static Set<DataAndTtl> keys(List<Record> records) {
        Set<DataAndTtl> keys = new HashSet<>(records.size() * 2);
        for (Record r : records) {
            keys.add(DataAndTtl.of(r));
        }
        return keys;
    }

    private static Set<Integer> typesAt(ZoneData zone, Name name) {
        return zone.types(name);
    }

    private static boolean sameSet(List<Record> existing, List<Record> wanted) {
        if (existing.isEmpty()) {
            return false;
        }
        for (Record w : wanted) {
            if (existing.stream().noneMatch(e -> ZoneData.sameData(e, w))) {
                return false;
            }
        }
        for (Record e : existing) {
            if (wanted.stream().noneMatch(w -> ZoneData.sameData(e, w))) {
                return false;
            }
        }
        return true;
    }

    /** RDATA present: a prerequisite or delete with class ANY/NONE must carry none (RDLENGTH 0). */
    private static boolean hasRdata(Record r) {
        return r.rdataToWireCanonical().length > 0;
    }

    private static boolean isDnssec(int type) {
        return type == Type.RRSIG || type == Type.NSEC || type == Type.NSEC3 || type == Type.DNSKEY;
    }
}
