package io.meshdns.testsupport.dns;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;

/** Knot DNS ({@code /usr/sbin/knotd -c}) with an ACL allowing UPDATE and AXFR by the TSIG key. */
public final class KnotServer extends DnsServer {

    public KnotServer(String algorithm, List<String> zones) throws IOException {
        super(algorithm, zones);
    }

    @Override
    protected List<String> prepare(String extra) throws IOException {
        Files.createDirectories(dir.resolve("db"));
        var conf = new StringBuilder();
        conf.append("server:\n")
                .append("    rundir: \"").append(dir).append("\"\n")
                .append("    listen: 127.0.0.1@").append(port).append("\n")
                // generous TCP I/O timeouts: on a loaded CI machine the client may be slow to read a big AXFR
                .append("    tcp-io-timeout: 20000\n    tcp-remote-io-timeout: 20000\n    tcp-idle-timeout: 60\n")
                .append("database:\n    storage: \"").append(dir.resolve("db")).append("\"\n")
                .append("log:\n  - target: stdout\n    any: info\n")
                .append("key:\n  - id: ").append(KEY_NAME).append("\n    algorithm: ").append(algorithm)
                .append("\n    secret: ").append(secret).append("\n")
                .append("acl:\n  - id: by-key\n    key: ").append(KEY_NAME).append("\n    action: [update, transfer]\n")
                .append("template:\n  - id: default\n    storage: \"").append(dir).append("\"\n")
                .append("    file: \"%s.zone\"\n    zonefile-sync: -1\n    journal-content: none\n")
                .append("zone:\n");
        for (String zone : zones) {
            Files.writeString(dir.resolve(zone + ".zone"), zoneFile(zone, extra));
            conf.append("  - domain: ").append(zone).append("\n    acl: by-key\n");
        }
        Files.writeString(dir.resolve("knot.conf"), conf.toString());
        return List.of("/usr/sbin/knotd", "-c", dir.resolve("knot.conf").toString());
    }
}
