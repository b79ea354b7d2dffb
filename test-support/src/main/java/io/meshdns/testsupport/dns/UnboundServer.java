package io.meshdns.testsupport.dns;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Debian's Unbound answering {@code local-data} records on loopback, over plain DNS and over DNS over TLS
 * (RFC 7858) with a certificate the test made: an upstream for forwarding tests. Same ports on a restart.
 */
public final class UnboundServer extends ChildProcess {
    private final int port = LoopbackPorts.pick();
    private final int tlsPort = LoopbackPorts.pick();
    private final Path cert;
    private final Path key;
    private final List<String> localData;

    /**
     * @param cert, key  the DoT certificate and key (PEM)
     * @param localData  {@code local-data} lines, e.g. {@code "a.example.test. 60 IN A 192.0.2.1"}; their zones are
     *                   served as {@code static} local zones
     */
    public UnboundServer(Path cert, Path key, List<String> localData) throws IOException {
        super("unbound");
        this.cert = cert;
        this.key = key;
        this.localData = List.copyOf(localData);
    }

    /**
     * The {@code server:} options (two-space indented lines, no trailing newline) that keep Unbound a plain child of
     * the test: in the foreground, no chroot, no user switch, no pid file, logging to stderr, IPv4 only, its files
     * in {@code dir}. For a test that writes an Unbound config of its own.
     */
    public static String foregroundOptions(Path dir) {
        return String.join("\n", "  do-ip6: no", "  do-daemonize: no", "  username: \"\"", "  chroot: \"\"",
                "  directory: \"" + dir + "\"", "  pidfile: \"\"", "  use-syslog: no", "  logfile: \"\"");
    }

    public int port() {
        return port;
    }

    public int tlsPort() {
        return tlsPort;
    }

    public UnboundServer start() throws IOException {
        StringBuilder conf = new StringBuilder("""
                server:
                  interface: 127.0.0.1@%1$d
                  interface: 127.0.0.1@%2$d
                  tls-port: %2$d
                  tls-service-key: "%3$s"
                  tls-service-pem: "%4$s"
                %5$s
                  verbosity: 1
                  access-control: 127.0.0.0/8 allow
                  module-config: "iterator"
                  incoming-num-tcp: 64
                  tcp-idle-timeout: 30000
                """.formatted(port, tlsPort, key, cert, foregroundOptions(dir)));
        for (String data : localData) {
            String owner = data.trim().split("\\s+")[0];
            String zone = owner.substring(owner.indexOf('.') + 1);
            conf.append("  local-zone: \"").append(zone).append("\" static\n");
            conf.append("  local-data: \"").append(data).append("\"\n");
        }
        Files.writeString(dir.resolve("unbound.conf"), conf.toString());
        launch(List.of("unbound", "-d", "-c", dir.resolve("unbound.conf").toString()), this::listening, Duration.ofSeconds(20));
        return this;
    }

    private boolean listening() {
        for (int p : new int[]{port, tlsPort}) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", p), 200);
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }
}
