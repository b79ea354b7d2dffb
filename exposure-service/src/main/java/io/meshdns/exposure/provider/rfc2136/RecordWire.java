package io.meshdns.exposure.provider.rfc2136;

import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.provider.ProviderException;
import io.meshdns.exposure.provider.RecordOp;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.xbill.DNS.*;
import org.xbill.DNS.Record;

/**
 * Endpoint targets as dnsjava wire records and back, for the RFC 2136 provider: a record built from a target (names made
 * absolute, TXT split into 255-byte character-strings), the target read back from a transferred record, and a
 * {@link RecordOp} as the prerequisite-free UPDATE section entries it stands for. Pure: no I/O.
 */
final class RecordWire {

    private RecordWire() {
    }

    static void add(Update update, RecordOp op, List<Record> recs) {
        if (op instanceof RecordOp.ReplaceRRset) {
            update.delete(recs.get(0).getName(), recs.get(0).getType());
            recs.subList(1, recs.size()).forEach(update::add);
        } else if (op instanceof RecordOp.DeleteRRset) {
            update.delete(recs.get(0).getName(), recs.get(0).getType());
        } else if (op instanceof RecordOp.AddRecords) {
            recs.forEach(update::add);
        } else {
            recs.forEach(update::delete);
        }
    }

    /** Wire records for one op; for RRset-wide ops the first entry stands for the (name, type) header. */
    static List<Record> records(RecordOp op, long defaultTtl, long minTtl) throws ProviderException {
        Endpoint e = op.endpoint();
        long ttl = Math.max(minTtl, e.ttl() == 0 ? defaultTtl : e.ttl());
        Name name = absolute(e.dnsName());
        int type = Type.value(e.recordType());
        var out = new ArrayList<Record>();
        if (op instanceof RecordOp.ReplaceRRset || op instanceof RecordOp.DeleteRRset) {
            out.add(Record.newRecord(name, type, DClass.ANY, 0));
        }
        if (!(op instanceof RecordOp.DeleteRRset)) {
            for (String t : e.targets()) out.add(toRecord(name, e.recordType(), ttl, t));
        }
        return out;
    }

    static Record toRecord(Name name, String type, long ttl, String target) throws ProviderException {
        try {
            switch (type) {
                case "TXT":
                    return new TXTRecord(name, DClass.IN, ttl, chunks(target));
                case "A", "AAAA":
                    return Record.fromString(name, Type.value(type), DClass.IN, ttl, target, Name.root);
                case "CNAME", "NS", "PTR":
                    return Record.fromString(name, Type.value(type), DClass.IN, ttl, target + ".", Name.root);
                case "SRV", "MX": {
                    String[] p = target.split(" ");
                    p[p.length - 1] = p[p.length - 1] + ".";
                    return Record.fromString(name, Type.value(type), DClass.IN, ttl, String.join(" ", p), Name.root);
                }
                default:
                    return Record.fromString(name, Type.value(type), DClass.IN, ttl, target, name);
            }
        } catch (Exception e) {
            throw ProviderException.rejected("cannot build " + type + " record " + name + " " + target + ": " + e.getMessage(), e);
        }
    }

    /** TXT character-strings hold at most 255 bytes: longer text is split and joined again on read. */
    static List<String> chunks(String text) {
        var out = new ArrayList<String>();
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= 255) return List.of(text);
        int start = 0;
        while (start < text.length()) {
            int end = Math.min(text.length(), start + 255);
            while (text.substring(start, end).getBytes(StandardCharsets.UTF_8).length > 255) end--;
            out.add(text.substring(start, end));
            start = end;
        }
        return out;
    }

    static String targetOf(Record r) {
        if (r instanceof ARecord a) return a.getAddress().getHostAddress();
        if (r instanceof AAAARecord a) return Endpoint.canonicalAddress(a.getAddress());
        if (r instanceof CNAMERecord c) return c.getTarget().toString();
        if (r instanceof NSRecord n) return n.getTarget().toString();
        if (r instanceof PTRRecord p) return p.getTarget().toString();
        if (r instanceof SRVRecord s) return s.getPriority() + " " + s.getWeight() + " " + s.getPort() + " " + s.getTarget();
        if (r instanceof MXRecord m) return m.getPriority() + " " + m.getTarget();
        if (r instanceof TXTRecord t) return String.join("", t.getStrings());
        return r.rdataToString();
    }

    static Name absolute(String name) {
        try {
            return Name.fromString(name.endsWith(".") ? name : name + ".");
        } catch (Exception e) {
            throw new IllegalArgumentException("not a DNS name: " + name, e);
        }
    }
}
