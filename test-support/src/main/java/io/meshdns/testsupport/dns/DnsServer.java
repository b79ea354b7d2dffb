package io.meshdns.testsupport.dns;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * A real authoritative server (BIND9 or Knot) started in a temp dir on a free loopback port, with one
 * TSIG key allowed to UPDATE and AXFR its zones. Subclasses write the config; this class runs the
 * process, waits until it answers, offers dig and stops it.
 */
public abstract class DnsServer implements AutoCloseable {

    public static final String KEY_NAME = "meshdns-key";

    protected final Path dir;
    protected final int port;
    protected final String secret;
    protected final String algorithm;
    protected final List<String> zones;
    private Process process;
    private Path log;

    protected DnsServer(String algorithm, List<String> zones) throws IOException {
        this.dir = Files.createTempDirectory("meshdns-" + getClass().getSimpleName().toLowerCase());
        this.port = LoopbackPorts.pick();
        byte[] key = new byte[32];
        new java.security.SecureRandom().nextBytes(key);
        this.secret = Base64.getEncoder().encodeToString(key);
        this.algorithm = algorithm;
        this.zones = List.copyOf(zones);
    }

    /** Writes config and zone files, returns the command line. */
    protected abstract List<String> prepare(String zoneExtraRecords) throws IOException;

    protected String zoneFile(String zone, String extra) {
        return "$TTL 300\n"
                + "@ IN SOA ns1." + zone + ". hostmaster." + zone + ". 1 3600 600 86400 60\n"
                + "@ IN NS ns1." + zone + ".\n"
                + "ns1 IN A 127.0.0.1\n"
                + (extra == null ? "" : extra) + "\n";
    }

    public DnsServer start(String zoneExtraRecords) throws IOException {
        List<String> cmd = prepare(zoneExtraRecords);
        log = dir.resolve("server.log");
        process = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        Instant deadline = Instant.now().plusSeconds(20);
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new IllegalStateException(cmd.get(0) + " exited: " + Files.readString(log));
            }
            try {
                if (soa(zones.get(0)) != null) return this;
            } catch (IOException ignored) {
                // not up yet
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
        }
        throw new IllegalStateException(cmd.get(0) + " did not answer in time: " + Files.readString(log));
    }

    private Record soa(String zone) throws IOException {
        SimpleResolver r = resolver();
        r.setTimeout(Duration.ofMillis(300));
        Message m = r.send(Message.newQuery(Record.newRecord(Name.fromString(zone + "."), Type.SOA, 1)));
        return m.getRcode() == Rcode.NOERROR && !m.getSection(Section.ANSWER).isEmpty() ? m.getSection(Section.ANSWER).get(0) : null;
    }

    public SimpleResolver resolver() throws IOException {
        SimpleResolver r = new SimpleResolver(new InetSocketAddress("127.0.0.1", port));
        r.setTimeout(Duration.ofSeconds(3));
        return r;
    }

    public int port() {
        return port;
    }

    public String secret() {
        return secret;
    }

    public String algorithm() {
        return algorithm;
    }

    public List<String> zones() {
        return zones;
    }

    /** Runs {@code dig +short} against this server; returns the answer lines, sorted. */
    public List<String> dig(String name, String type) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("dig", "@127.0.0.1", "-p", String.valueOf(port), "+short", "+norecurse",
                "+time=2", "+tries=1", name, type).redirectErrorStream(true).start();
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("dig timed out");
        }
        var lines = new ArrayList<String>();
        for (String l : new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
            if (!l.isBlank()) lines.add(l.trim());
        }
        lines.sort(null);
        return lines;
    }

    /** Runs a TSIG-signed {@code dig AXFR} (the independent client) and returns the zone's records as text lines. */
    public List<String> digAxfr(String zone) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("dig", "@127.0.0.1", "-p", String.valueOf(port), "+nocmd", "+nostats",
                "+noall", "+answer", "-y", tsigAlgorithmForDig() + ":" + KEY_NAME + ":" + secret, zone, "AXFR")
                .redirectErrorStream(true).start();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("dig axfr timed out");
        }
        var lines = new ArrayList<String>();
        for (String l : new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
            if (!l.isBlank()) lines.add(l.trim().replaceAll("\\s+", " "));
        }
        return lines;
    }

    private String tsigAlgorithmForDig() {
        return algorithm.startsWith("hmac-") ? algorithm : "hmac-" + algorithm;
    }

    public String log() throws IOException {
        return log == null ? "" : Files.readString(log);
    }

    @Override
    public void close() throws IOException {
        if (process != null) {
            process.destroy();
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
