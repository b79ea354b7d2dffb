package io.meshdns.testsupport.dns;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;

/** BIND9 ({@code /usr/sbin/named -g}) with dynamic master zones: update-policy zonesub ANY and AXFR by key. */
public final class BindServer extends DnsServer {

    public BindServer(String algorithm, List<String> zones) throws IOException {
        super(algorithm, zones);
    }

    private boolean incrementalTransfers = true;

    /**
     * A BIND9 that answers every IXFR with the whole zone (server clause {@code provide-ixfr no}), as a
     * primary without journal history does: for testing the AXFR fallback of IXFR clients.
     */
    public BindServer withoutIxfr() {
        incrementalTransfers = false;
        return this;
    }

    @Override
    protected List<String> prepare(String extra) throws IOException {
        var conf = new StringBuilder();
        conf.append("options {\n")
                .append("  directory \"").append(dir).append("\";\n")
                .append("  pid-file \"").append(dir.resolve("named.pid")).append("\";\n")
                .append("  session-keyfile \"").append(dir.resolve("session.key")).append("\";\n")
                .append("  managed-keys-directory \"").append(dir).append("\";\n")
                .append("  listen-on port ").append(port).append(" { 127.0.0.1; };\n")
                .append("  listen-on-v6 { none; };\n")
                .append("  recursion no;\n  dnssec-validation no;\n  notify no;\n  allow-query { any; };\n")
                .append("};\n")
                .append("controls { };\n")
                .append(incrementalTransfers ? "" : "server 127.0.0.1 { provide-ixfr no; };\n")
                .append("key \"").append(KEY_NAME).append("\" { algorithm ").append(algorithm)
                .append("; secret \"").append(secret).append("\"; };\n");
        for (String zone : zones) {
            Files.writeString(dir.resolve(zone + ".zone"), zoneFile(zone, extra));
            conf.append("zone \"").append(zone).append("\" {\n  type primary;\n  file \"").append(dir.resolve(zone + ".zone"))
                    .append("\";\n  update-policy { grant ").append(KEY_NAME).append(" zonesub ANY; };\n")
                    .append("  allow-transfer { key ").append(KEY_NAME).append("; };\n};\n");
        }
        Files.writeString(dir.resolve("named.conf"), conf.toString());
        return List.of("/usr/sbin/named", "-g", "-c", dir.resolve("named.conf").toString());
    }
}
