package io.meshdns.testsupport.upstream;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.xbill.DNS.Name;

/**
 * Knot DNS ({@code /usr/sbin/knotd -c}) on 127.0.0.1:&lt;free port&gt;, authoritative for the given zones
 * (zone files in the temp dir, no journal, never written back).
 */
public final class KnotServer extends ExternalDnsServer {
    private final Map<String, String> zones = new LinkedHashMap<>();
    private final java.util.Set<String> signed = new java.util.HashSet<>();

    public KnotServer(Path dir) {
        super(dir);
    }

    public static KnotServer withZone(Path dir, String zone, String zoneText) {
        return new KnotServer(dir).zone(zone, zoneText);
    }

    public KnotServer zone(String zone, String zoneText) {
        zones.put(zone, zoneText);
        return this;
    }

    /** Like {@link #zone}, signed by Knot at load (DNSSEC, default policy: keys generated in the temp dir). */
    public KnotServer signedZone(String zone, String zoneText) {
        signed.add(zone);
        return zone(zone, zoneText);
    }

    @Override
    protected List<String> command() {
        return List.of("/usr/sbin/knotd", "-c", dir.resolve("knot.conf").toString());
    }

    @Override
    protected Name readinessName() {
        return Name.fromConstantString(zones.keySet().iterator().next() + ".");
    }

    @Override
    protected void writeConfig() throws IOException {
        StringBuilder conf = new StringBuilder();
        conf.append("server:\n")
                .append("    rundir: \"").append(dir).append("\"\n")
                .append("    pidfile: \"").append(dir.resolve("knot.pid")).append("\"\n")
                .append("    listen: 127.0.0.1@").append(port).append("\n")
                .append("control:\n")
                .append("    listen: \"").append(dir.resolve("knot.sock")).append("\"\n")
                .append("log:\n  - target: stderr\n    any: info\n")
                .append("database:\n    storage: \"").append(dir.resolve("db")).append("\"\n")
                .append("template:\n  - id: default\n")
                .append("    storage: \"").append(dir).append("\"\n")
                .append("    file: \"%s.zone\"\n")
                .append("    journal-content: none\n")
                .append("    zonefile-sync: -1\n")
                .append("zone:\n");
        for (Map.Entry<String, String> zone : zones.entrySet()) {
            Files.writeString(dir.resolve(zone.getKey() + ".zone"), zone.getValue());
            conf.append("  - domain: ").append(zone.getKey()).append("\n");
            if (signed.contains(zone.getKey())) {
                conf.append("    dnssec-signing: on\n");
            }
        }
        Files.createDirectories(dir.resolve("db")); // Knot keeps DNSSEC keys there and does not create it
        Files.writeString(dir.resolve("knot.conf"), conf.toString());
    }
}
