package io.meshdns.testsupport.dns;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Knot DNS ({@code /usr/sbin/knotd -c}) on 127.0.0.1:&lt;free port&gt;, authoritative for its zones (zone files in
 * the dir, no journal, never written back), optionally signing some at load. With a TSIG key, an ACL lets that key
 * UPDATE and AXFR every zone.
 */
public final class KnotServer extends DnsServer<KnotServer> {
    private final Set<String> signed = new HashSet<>();

    /** Dynamic zones in a temp dir of its own: see {@link DnsServer#DnsServer(String, String, List)}. */
    public KnotServer(String algorithm, List<String> zones) throws IOException {
        super("knotserver", algorithm, zones);
    }

    /** In the test's {@code dir}; add zones before {@link #start()}. */
    public KnotServer(Path dir) {
        super(dir);
    }

    /** Like {@link #zone}, signed by Knot at load (DNSSEC, default policy: keys generated in the dir). */
    public KnotServer signedZone(String zone, String zoneText) {
        signed.add(zone);
        return zone(zone, zoneText);
    }

    @Override
    protected List<String> command() {
        return List.of("/usr/sbin/knotd", "-c", dir.resolve("knot.conf").toString());
    }

    @Override
    protected void writeConfig() throws IOException {
        Files.createDirectories(dir.resolve("db")); // Knot keeps DNSSEC keys there and does not create it
        var conf = new StringBuilder();
        conf.append("server:\n")
                .append("    rundir: \"").append(dir).append("\"\n")
                .append("    pidfile: \"").append(dir.resolve("knot.pid")).append("\"\n")
                .append("    listen: 127.0.0.1@").append(port).append("\n")
                // generous TCP I/O timeouts: on a loaded CI machine the client may be slow to read a big AXFR
                .append("    tcp-io-timeout: 20000\n    tcp-remote-io-timeout: 20000\n    tcp-idle-timeout: 60\n")
                .append("control:\n")
                .append("    listen: \"").append(dir.resolve("knot.sock")).append("\"\n")
                .append("database:\n    storage: \"").append(dir.resolve("db")).append("\"\n")
                .append("log:\n  - target: stdout\n    any: info\n");
        if (keyName != null) {
            conf.append("key:\n  - id: ").append(keyName).append("\n    algorithm: ").append(algorithm)
                    .append("\n    secret: ").append(secret).append("\n")
                    .append("acl:\n  - id: by-key\n    key: ").append(keyName).append("\n    action: [update, transfer]\n");
        }
        conf.append("template:\n  - id: default\n    storage: \"").append(dir).append("\"\n")
                .append("    file: \"%s.zone\"\n    zonefile-sync: -1\n    journal-content: none\n")
                .append("zone:\n");
        for (Map.Entry<String, String> zone : zones.entrySet()) {
            Files.writeString(dir.resolve(zone.getKey() + ".zone"), zone.getValue());
            conf.append("  - domain: ").append(zone.getKey()).append("\n");
            if (keyName != null) conf.append("    acl: by-key\n");
            if (signed.contains(zone.getKey())) conf.append("    dnssec-signing: on\n");
        }
        Files.writeString(dir.resolve("knot.conf"), conf.toString());
    }
}
