package io.meshdns.testsupport.dns;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * BIND9 ({@code /usr/sbin/named -g}) on 127.0.0.1:&lt;free port&gt;, primary for its zones, the query log on (each
 * line shows the transport: flag {@code T} = TCP). With a TSIG key, that key may UPDATE ({@code update-policy
 * zonesub ANY}) and AXFR every zone; optionally a forwarder ({@code forward only}) to another server, e.g. to build
 * a forwarding loop back to meshdns.
 *
 * <pre>
 * try (BindServer bind = new BindServer(tmp).zone("example.test", zoneText)) {   // an upstream of dns-service
 *     bind.start();
 *     ... meshdns.dns.upstreams = bind.address() ...
 * }
 * try (BindServer bind = new BindServer("hmac-sha256", List.of("mesh.test"))) {   // a target of RFC 2136 updates
 *     bind.start(extraRecords);
 *     ... bind.port(), DnsServer.KEY_NAME, bind.secret() ...
 * }
 * </pre>
 */
public final class BindServer extends DnsServer<BindServer> {
    private String forwardTo;
    private boolean incrementalTransfers = true;

    /** Dynamic zones in a temp dir of its own: see {@link DnsServer#DnsServer(String, String, List)}. */
    public BindServer(String algorithm, List<String> zones) throws IOException {
        super("bindserver", algorithm, zones);
    }

    /** In the test's {@code dir}; add zones before {@link #start()}. */
    public BindServer(Path dir) {
        super(dir);
    }

    /** Recursion on, and every query this server cannot answer from its zones is forwarded there. */
    public BindServer forwardOnlyTo(String host, int port) {
        this.forwardTo = host + " port " + port;
        return this;
    }

    /**
     * A BIND9 that answers every IXFR with the whole zone (server clause {@code provide-ixfr no}), as a
     * primary without journal history does: for testing the AXFR fallback of IXFR clients.
     */
    public BindServer withoutIxfr() {
        incrementalTransfers = false;
        return this;
    }

    @Override
    protected List<String> command() {
        return List.of("/usr/sbin/named", "-g", "-c", dir.resolve("named.conf").toString());
    }

    @Override
    protected void writeConfig() throws IOException {
        Files.createDirectories(dir);
        var conf = new StringBuilder();
        conf.append("options {\n")
                .append("  directory \"").append(dir).append("\";\n")
                .append("  pid-file \"").append(dir.resolve("named.pid")).append("\";\n")
                .append("  session-keyfile \"").append(dir.resolve("session.key")).append("\";\n")
                .append("  managed-keys-directory \"").append(dir).append("\";\n")
                .append("  listen-on port ").append(port).append(" { 127.0.0.1; };\n")
                .append("  listen-on-v6 { none; };\n")
                .append("  dnssec-validation no;\n  notify no;\n  allow-query { any; };\n")
                .append("  querylog yes;\n")
                .append("  minimal-responses no;\n");
        if (forwardTo != null) {
            conf.append("  recursion yes;\n  allow-recursion { any; };\n  forward only;\n")
                    .append("  forwarders { ").append(forwardTo).append("; };\n");
        } else {
            conf.append("  recursion no;\n");
        }
        conf.append("};\n")
                .append("controls { };\n")
                .append(incrementalTransfers ? "" : "server 127.0.0.1 { provide-ixfr no; };\n");
        if (keyName != null) {
            conf.append("key \"").append(keyName).append("\" { algorithm ").append(algorithm)
                    .append("; secret \"").append(secret).append("\"; };\n");
        }
        for (Map.Entry<String, String> zone : zones.entrySet()) {
            Path file = dir.resolve(zone.getKey() + ".zone");
            Files.writeString(file, zone.getValue());
            conf.append("zone \"").append(zone.getKey()).append("\" {\n  type primary;\n  file \"").append(file).append("\";\n");
            if (keyName != null) {
                conf.append("  update-policy { grant ").append(keyName).append(" zonesub ANY; };\n")
                        .append("  allow-transfer { key ").append(keyName).append("; };\n");
            }
            conf.append("};\n");
        }
        Files.writeString(dir.resolve("named.conf"), conf.toString());
    }

    /** Query-log lines ({@code ... query: <name> IN <type> <flags> ...}) for a name, in order. */
    public List<String> queriesFor(String name) {
        List<String> lines = new ArrayList<>();
        String needle = "query: " + name.toLowerCase() + " ";
        for (String line : log().split("\n")) {
            if (line.toLowerCase().contains(needle)) {
                lines.add(line);
            }
        }
        return lines;
    }

    /** Whether a query-log line was received over TCP (BIND prints flag T). */
    public static boolean isTcp(String queryLogLine) {
        int q = queryLogLine.indexOf("query: ");
        String[] parts = queryLogLine.substring(q).split(" ");
        // query: <name> <class> <type> <flags> (<server>)
        return parts.length > 4 && parts[4].contains("T");
    }
}
