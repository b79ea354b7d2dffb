package io.meshdns.dns.zonefile;

import io.meshdns.dns.snapshot.ZoneContent;
import org.jboss.logging.Logger;
import org.xbill.DNS.AAAARecord;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.Address;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Name;
import org.xbill.DNS.PTRRecord;
import org.xbill.DNS.Record;
import org.xbill.DNS.ReverseMap;
import org.xbill.DNS.TextParseException;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Parses /etc/hosts format: {@code address name [alias...]}, {@code #} comments. Each name gets an A
 * or AAAA record and each address a PTR to its first (canonical) name. Lines that do not parse are
 * skipped with a warning naming file and line, as the C library's resolver skips them: one bad line
 * must not take the rest of the file down. The content is not authoritative: names absent from it
 * are forwarded.
 */
public final class HostsFileParser {
    private static final Logger LOG = Logger.getLogger(HostsFileParser.class);

    public static ZoneContent parse(String file, List<String> lines, long ttl) {
        List<Record> records = new ArrayList<>();
        Set<Name> reverseDone = new HashSet<>();
        int lineNo = 0;
        for (String raw : lines) {
            lineNo++;
            int hash = raw.indexOf('#');
            String line = (hash >= 0 ? raw.substring(0, hash) : raw).trim();
            if (line.isEmpty()) {
                continue;
            }
            String[] fields = line.split("\\s+");
            if (fields.length < 2) {
                LOG.warnf("%s:%d: expected 'address name [alias...]', skipped", file, lineNo);
                continue;
            }
            InetAddress address = parseAddress(fields[0]);
            if (address == null) {
                LOG.warnf("%s:%d: '%s' is not an IP address, skipped", file, lineNo, fields[0]);
                continue;
            }
            Name canonical = null;
            for (int i = 1; i < fields.length; i++) {
                Name name;
                try {
                    name = Name.fromString(fields[i], Name.root);
                } catch (TextParseException e) {
                    LOG.warnf("%s:%d: '%s' is not a valid name, skipped", file, lineNo, fields[i]);
                    continue;
                }
                if (canonical == null) {
                    canonical = name;
                }
                records.add(address.getAddress().length == 4
                        ? new ARecord(name, DClass.IN, ttl, address)
                        : new AAAARecord(name, DClass.IN, ttl, address));
            }
            if (canonical != null) {
                Name reverse = ReverseMap.fromAddress(address);
                if (reverseDone.add(reverse)) { // the first line for an address names it, as in glibc
                    records.add(new PTRRecord(reverse, DClass.IN, ttl, canonical));
                }
            }
        }
        return new ZoneContent(Name.root, records, false);
    }

    private static InetAddress parseAddress(String text) {
        int family = text.indexOf(':') >= 0 ? Address.IPv6 : Address.IPv4;
        byte[] bytes = Address.toByteArray(text, family);
        if (bytes == null) {
            return null;
        }
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            return null;
        }
    }

    private HostsFileParser() {
    }
}
