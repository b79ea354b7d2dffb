package io.meshdns.it.k8s;

import io.meshdns.testsupport.upstream.ExternalDnsServer;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;

/** A real BIND9 on loopback with one primary zone that accepts UPDATEs signed with one TSIG key (hmac-sha256). */
final class UpdatableBind extends ExternalDnsServer {
    private final String zone;
    private final String keyName;
    private final String secret;

    UpdatableBind(java.nio.file.Path dir, String zone, String keyName, String secret) {
        super(dir);
        this.zone = zone;
        this.keyName = keyName;
        this.secret = secret;
    }

    @Override
    protected List<String> command() {
        return List.of("/usr/sbin/named", "-g", "-c", dir.resolve("named.conf").toString());
    }

    @Override
    protected Name readinessName() {
        return Name.fromConstantString(zone + ".");
    }

    @Override
    protected void writeConfig() throws IOException {
        Files.writeString(dir.resolve(zone + ".zone"), """
                $TTL 60
                @ IN SOA ns.%1$s. hostmaster.%1$s. 1 60 60 600 60
                @ IN NS ns.%1$s.
                ns IN A 127.0.0.1
                """.formatted(zone));
        Files.writeString(dir.resolve("named.conf"), """
                options {
                  directory "%1$s";
                  pid-file "%1$s/named.pid";
                  session-keyfile "%1$s/session.key";
                  listen-on port %2$d { 127.0.0.1; };
                  listen-on-v6 { none; };
                  recursion no;
                  dnssec-validation no;
                };
                controls { };
                key "%3$s" { algorithm hmac-sha256; secret "%4$s"; };
                zone "%5$s" { type primary; file "%1$s/%5$s.zone"; allow-update { key "%3$s"; }; };
                """.formatted(dir, port, keyName, secret, zone));
    }

    /** The A records BIND holds for a name (empty while there are none). */
    List<String> a(String name) throws IOException {
        SimpleResolver r = new SimpleResolver(InetAddress.getLoopbackAddress());
        r.setPort(port);
        r.setTimeout(Duration.ofSeconds(2));
        Message response = r.send(Message.newQuery(Record.newRecord(Name.fromString(name), Type.A, DClass.IN)));
        return response.getSection(Section.ANSWER).stream().filter(ARecord.class::isInstance)
                .map(x -> ((ARecord) x).getAddress().getHostAddress()).toList();
    }
}
