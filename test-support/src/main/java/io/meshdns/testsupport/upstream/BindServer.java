package io.meshdns.testsupport.upstream;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.xbill.DNS.Name;

/**
 * BIND9 ({@code /usr/sbin/named -g}) on 127.0.0.1:&lt;free port&gt;, serving the given zones as primary, with
 * the query log on (each line shows the transport: flag {@code T} = TCP). Optionally a forwarder
 * ({@code forward only}) to another server, e.g. to build a forwarding loop back to meshdns.
 *
 * <pre>
 * try (BindServer bind = BindServer.withZone(tmp, "example.test", zoneText)) {
 *     bind.start();
 *     ... meshdns.dns.upstreams = bind.address() ...
 * }
 * </pre>
 */
public final class BindServer extends ExternalDnsServer {
    private final Map<String, String> zones = new LinkedHashMap<>();
    private String forwardTo;

    public BindServer(Path dir) {
        super(dir);
    }

    public static BindServer withZone(Path dir, String zone, String zoneText) {
        return new BindServer(dir).zone(zone, zoneText);
    }

    public BindServer zone(String zone, String zoneText) {
        zones.put(zone, zoneText);
        return this;
    }

    /** Recursion on, and every query this server cannot answer from its zones is forwarded there. */
    public BindServer forwardOnlyTo(String host, int port) {
        this.forwardTo = host + " port " + port;
        return this;
    }

    @Override
    protected List<String> command() {
        return List.of("/usr/sbin/named", "-g", "-c", dir.resolve("named.conf").toString());
    }

    @Override
    protected Name readinessName() {
        return Name.fromConstantString(zones.keySet().iterator().next() + ".");
    }

    @Override
    protected void writeConfig() throws IOException {
        StringBuilder conf = new StringBuilder();
        conf.append("options {\n")
                .append("  directory \"").append(dir).append("\";\n")
                .append("  pid-file \"").append(dir.resolve("named.pid")).append("\";\n")
                .append("  session-keyfile \"").append(dir.resolve("session.key")).append("\";\n")
                .append("  listen-on port ").append(port).append(" { 127.0.0.1; };\n")
                .append("  listen-on-v6 { none; };\n")
                .append("  dnssec-validation no;\n")
                .append("  querylog yes;\n")
                .append("  minimal-responses no;\n");
        if (forwardTo != null) {
            conf.append("  recursion yes;\n  allow-recursion { any; };\n  forward only;\n")
                    .append("  forwarders { ").append(forwardTo).append("; };\n");
        } else {
            conf.append("  recursion no;\n");
        }
        conf.append("};\ncontrols { };\n");
        for (Map.Entry<String, String> zone : zones.entrySet()) {
            Path file = dir.resolve(zone.getKey() + ".zone");
            Files.writeString(file, zone.getValue());
            conf.append("zone \"").append(zone.getKey()).append("\" { type primary; file \"").append(file).append("\"; };\n");
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
