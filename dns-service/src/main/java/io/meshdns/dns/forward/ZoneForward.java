package io.meshdns.dns.forward;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.xbill.DNS.Name;
import org.xbill.DNS.TextParseException;

/** A stub domain: names at or under {@code zone} go to {@code servers} instead of the default upstreams. */
public record ZoneForward(Name zone, List<Upstream> servers) {

    public static final String KEY = "meshdns.dns.zone-forwards";

    public ZoneForward {
        servers = List.copyOf(servers);
    }

    /**
     * Parses {@code zone=host[:port][,host[:port]...]} entries. The config list is split on commas,
     * so an element without '=' continues the previous zone's server list. The result is sorted so
     * that the longest (most specific) zone comes first.
     */
    public static List<ZoneForward> parse(List<String> elements) {
        List<Name> zones = new ArrayList<>();
        List<List<Upstream>> servers = new ArrayList<>();
        for (String raw : elements) {
            String element = raw.trim();
            if (element.isEmpty()) {
                continue;
            }
            int eq = element.indexOf('=');
            String serverPart;
            if (eq >= 0) {
                String zoneText = element.substring(0, eq).trim();
                if (zoneText.isEmpty()) {
                    throw new IllegalArgumentException(KEY + ": '" + element + "' has an empty zone");
                }
                Name zone;
                try {
                    zone = Name.fromString(zoneText, Name.root);
                } catch (TextParseException e) {
                    throw new IllegalArgumentException(KEY + ": '" + zoneText + "' is not a domain name");
                }
                if (zones.contains(zone)) {
                    throw new IllegalArgumentException(KEY + ": zone '" + zoneText + "' is listed twice");
                }
                zones.add(zone);
                servers.add(new ArrayList<>());
                serverPart = element.substring(eq + 1);
            } else if (zones.isEmpty()) {
                throw new IllegalArgumentException(KEY + ": '" + element + "' is not zone=host[:port]");
            } else {
                serverPart = element;
            }
            for (String server : serverPart.split("[,\\s]+")) {
                if (!server.isBlank()) {
                    servers.get(servers.size() - 1).add(Upstream.parse(server, KEY));
                }
            }
        }
        List<ZoneForward> result = new ArrayList<>();
        for (int i = 0; i < zones.size(); i++) {
            if (servers.get(i).isEmpty()) {
                throw new IllegalArgumentException(KEY + ": zone '" + zones.get(i) + "' has no server");
            }
            result.add(new ZoneForward(zones.get(i), servers.get(i)));
        }
        result.sort(Comparator.comparingInt((ZoneForward z) -> z.zone().labels()).reversed());
        return List.copyOf(result);
    }

    /** The most specific forward covering {@code name}, or null. {@code forwards} must be sorted by {@link #parse}. */
    static ZoneForward match(List<ZoneForward> forwards, Name name) {
        for (ZoneForward f : forwards) {
            if (name.subdomain(f.zone())) {
                return f;
            }
        }
        return null;
    }
}
