package io.meshdns.dns.dynamic;

import io.meshdns.dns.snapshot.ZoneContent;
import org.xbill.DNS.DClass;
import org.xbill.DNS.NSRecord;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.Type;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * One version of a dynamic zone: owner name, then type, then the records of that RRset. Immutable;
 * an {@link Editor} makes the next version copy-on-write (only the names an update touches are
 * copied), so an UPDATE that fails half way leaves the published version untouched.
 * Names are kept in canonical DNS order so AXFR and the journal are deterministic.
 */
public final class ZoneData {
    private final Name origin;
    private final NavigableMap<Name, Map<Integer, List<Record>>> names;

    private ZoneData(Name origin, NavigableMap<Name, Map<Integer, List<Record>>> names) {
        this.origin = origin;
        this.names = Collections.unmodifiableNavigableMap(names);
    }

    /** A new zone with a synthesized SOA (serial 1) and NS {@code ns.<origin>}, for a zone without a journal. */
    public static ZoneData initial(Name origin) {
        Name ns = Name.fromConstantString("ns." + origin);
        Name admin = Name.fromConstantString("hostmaster." + origin);
        Editor e = new ZoneData(origin, new TreeMap<>()).edit();
        e.add(new SOARecord(origin, DClass.IN, 300, ns, admin, 1, 3600, 600, 86400, 30));
        e.add(new NSRecord(origin, DClass.IN, 300, ns));
        return e.build();
    }

    /** A zone holding exactly {@code records} (which must include the apex SOA). */
    public static ZoneData of(Name origin, List<Record> records) {
        Editor e = new ZoneData(origin, new TreeMap<>()).edit();
        records.forEach(e::add);
        ZoneData zone = e.build();
        if (zone.soa() == null) {
            throw new IllegalArgumentException("zone " + origin + " has no SOA at its apex");
        }
        return zone;
    }

    public Name origin() {
        return origin;
    }

    public SOARecord soa() {
        List<Record> soa = rrset(origin, Type.SOA);
        return soa.isEmpty() ? null : (SOARecord) soa.get(0);
    }

    /** The records of one RRset; empty when there is none. */
    public List<Record> rrset(Name name, int type) {
        Map<Integer, List<Record>> node = names.get(name);
        if (node == null) {
            return List.of();
        }
        return node.getOrDefault(type, List.of());
    }

    /** The types that have an RRset at {@code name}. */
    public java.util.Set<Integer> types(Name name) {
        Map<Integer, List<Record>> node = names.get(name);
        return node == null ? java.util.Set.of() : node.keySet();
    }

    /** RFC 2136 "name is in use": at least one RR of any type is owned by {@code name}. */
    public boolean exists(Name name) {
        return names.containsKey(name);
    }

    /** Number of records, SOA included. */
    public int size() {
        int n = 0;
        for (Map<Integer, List<Record>> node : names.values()) {
            for (List<Record> set : node.values()) {
                n += set.size();
            }
        }
        return n;
    }

    /** Every record: the SOA first, then the rest in canonical name order (the AXFR body). */
    public List<Record> records() {
        List<Record> all = new ArrayList<>();
        all.add(soa());
        names.forEach((name, node) -> node.forEach((type, set) -> {
            if (type != Type.SOA) {
                all.addAll(set);
            }
        }));
        return all;
    }

    public ZoneContent toContent() {
        return new ZoneContent(origin, records(), true);
    }

    public Editor edit() {
        return new Editor(this);
    }

    /** Same type, owner and RDATA (names in RDATA compared case-insensitively); class and TTL ignored. */
    static boolean sameData(Record a, Record b) {
        return a.getType() == b.getType() && a.getName().equals(b.getName())
                && Arrays.equals(a.rdataToWireCanonical(), b.rdataToWireCanonical());
    }

    /** {@code r} with class and TTL replaced; RDATA bytes kept as they are (case preserved). */
    static Record with(Record r, int dclass, long ttl) {
        if (r.getDClass() == dclass && r.getTTL() == ttl) {
            return r;
        }
        byte[] wire = r.toWire(org.xbill.DNS.Section.ANSWER); // uncompressed: name, type, class, ttl, rdlength, rdata
        int rdataStart = r.getName().length() + 10;
        return Record.newRecord(r.getName(), r.getType(), dclass, ttl, Arrays.copyOfRange(wire, rdataStart, wire.length));
    }

    /** A working copy: copy-on-write per owner name; {@link #build()} freezes it into the next version. */
    public static final class Editor {
        private final Name origin;
        private final TreeMap<Name, Map<Integer, List<Record>>> names;
        private final java.util.Set<Name> copied = new java.util.HashSet<>();

        private Editor(ZoneData base) {
            this.origin = base.origin;
            this.names = new TreeMap<>(base.names);
        }

        public Name origin() {
            return origin;
        }

        public List<Record> rrset(Name name, int type) {
            Map<Integer, List<Record>> node = names.get(name);
            return node == null ? List.of() : node.getOrDefault(type, List.of());
        }

        public Map<Integer, List<Record>> node(Name name) {
            return names.getOrDefault(name, Map.of());
        }

        public boolean exists(Name name) {
            return names.containsKey(name);
        }

        /** Adds {@code r} (class IN) unless an RR with the same data exists, in which case its TTL is taken. */
        public void add(Record r) {
            Record record = with(r, DClass.IN, r.getTTL());
            List<Record> set = mutable(record.getName(), record.getType());
            set.removeIf(existing -> sameData(existing, record));
            set.add(record);
            // RFC 2181 5.2: one TTL per RRset; the record just written decides it.
            set.replaceAll(existing -> with(existing, DClass.IN, record.getTTL()));
        }

        /** Replaces the whole RRset (SOA, CNAME). */
        public void replace(Record r) {
            Record record = with(r, DClass.IN, r.getTTL());
            List<Record> set = mutable(record.getName(), record.getType());
            set.clear();
            set.add(record);
        }

        /** Removes exactly the record with the same data as {@code r}; true if there was one. */
        public boolean remove(Record r) {
            Map<Integer, List<Record>> node = names.get(r.getName());
            if (node == null || !node.containsKey(r.getType())) {
                return false;
            }
            List<Record> set = mutable(r.getName(), r.getType());
            boolean removed = set.removeIf(existing -> sameData(existing, r));
            prune(r.getName(), r.getType());
            return removed;
        }

        public boolean removeRRset(Name name, int type) {
            Map<Integer, List<Record>> node = names.get(name);
            if (node == null || !node.containsKey(type)) {
                return false;
            }
            mutableNode(name).remove(type);
            prune(name, type);
            return true;
        }

        private List<Record> mutable(Name name, int type) {
            return mutableNode(name).computeIfAbsent(type, t -> new ArrayList<>());
        }

        private Map<Integer, List<Record>> mutableNode(Name name) {
            if (copied.add(name)) {
                Map<Integer, List<Record>> copy = new LinkedHashMap<>();
                names.getOrDefault(name, Map.of()).forEach((t, set) -> copy.put(t, new ArrayList<>(set)));
                names.put(name, copy);
            }
            return names.get(name);
        }

        private void prune(Name name, int type) {
            Map<Integer, List<Record>> node = names.get(name);
            if (node != null && node.containsKey(type) && node.get(type).isEmpty()) {
                node.remove(type);
            }
            if (node != null && node.isEmpty()) {
                names.remove(name);
                copied.remove(name);
            }
        }

        public ZoneData build() {
            TreeMap<Name, Map<Integer, List<Record>>> frozen = new TreeMap<>(names);
            for (Name name : copied) {
                Map<Integer, List<Record>> node = frozen.get(name);
                if (node == null) {
                    continue;
                }
                Map<Integer, List<Record>> f = new LinkedHashMap<>();
                node.forEach((t, set) -> {
                    if (!set.isEmpty()) {
                        f.put(t, List.copyOf(set));
                    }
                });
                if (f.isEmpty()) {
                    frozen.remove(name);
                } else {
                    frozen.put(name, Collections.unmodifiableMap(f));
                }
            }
            return new ZoneData(origin, frozen);
        }
    }
}
