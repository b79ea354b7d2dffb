package io.meshdns.testsupport.dns;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * A real authoritative server (BIND9 or Knot from Debian) on 127.0.0.1 and a free port, built up before
 * {@link #start()}: its zones ({@link #zone} with the zone file's text, or names whose zone file is made at
 * {@link #start(String)}), optionally a TSIG key allowed to UPDATE and AXFR them. Subclasses write the config;
 * this class starts it and waits until it answers the first zone's SOA, restarts it on the same port (an upstream
 * recovering), and offers dig. {@code S} is the launcher itself, so the builder methods return it.
 */
public abstract class DnsServer<S extends DnsServer<S>> extends ChildProcess {

    public static final String KEY_NAME = "meshdns-key";

    protected final int port = LoopbackPorts.pick();
    /** Zone name to zone-file text; null until {@link #start(String)} makes it. */
    protected final Map<String, String> zones = new LinkedHashMap<>();
    protected String keyName;
    protected String algorithm;
    protected String secret;

    /**
     * In a temp dir of its own ({@code meshdns-<name>…}); the TSIG key {@link #KEY_NAME} (random secret) may UPDATE
     * and AXFR {@code zones}, whose zone files {@link #start(String)} makes.
     */
    protected DnsServer(String name, String algorithm, List<String> zones) throws IOException {
        super(name);
        byte[] key = new byte[32];
        new java.security.SecureRandom().nextBytes(key);
        tsigKey(KEY_NAME, algorithm, Base64.getEncoder().encodeToString(key));
        zones.forEach(z -> this.zones.put(z, null));
    }

    /** In the test's {@code dir}, no zones and no key yet. */
    protected DnsServer(Path dir) {
        super(dir);
    }

    /** Serves {@code zone} from this zone-file text. */
    public S zone(String zone, String zoneText) {
        zones.put(zone, zoneText);
        return self();
    }

    /** A TSIG key ({@code algorithm}: e.g. hmac-sha256) that may UPDATE and AXFR every zone. */
    public S tsigKey(String keyName, String algorithm, String secret) {
        this.keyName = keyName;
        this.algorithm = algorithm;
        this.secret = secret;
        return self();
    }

    @SuppressWarnings("unchecked")
    protected final S self() {
        return (S) this;
    }

    /** The command line that runs the server in the foreground. */
    protected abstract List<String> command();

    /** Writes config and zone files into {@link #dir}. Called before every start. */
    protected abstract void writeConfig() throws IOException;

    /** A zone file with SOA, NS and the NS's address, then {@code extra} records. */
    protected String zoneFile(String zone, String extra) {
        return "$TTL 300\n"
                + "@ IN SOA ns1." + zone + ". hostmaster." + zone + ". 1 3600 600 86400 60\n"
                + "@ IN NS ns1." + zone + ".\n"
                + "ns1 IN A 127.0.0.1\n"
                + (extra == null ? "" : extra) + "\n";
    }

    /** Makes the zone file of every zone given by name only (SOA, NS, then {@code zoneExtraRecords}), and starts. */
    public S start(String zoneExtraRecords) throws IOException {
        zones.replaceAll((zone, text) -> text == null ? zoneFile(zone, zoneExtraRecords) : text);
        start();
        return self();
    }

    /** Writes the config and starts the server unless it runs; returns once it answers (20 s at most). */
    public synchronized void start() {
        if (isAlive()) return;
        try {
            writeConfig();
            launch(command(), this::answers, Duration.ofSeconds(20));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command(), e);
        }
    }

    /** Stops and starts again on the same port with the same files. */
    public void restart() {
        stop();
        start();
    }

    private boolean answers() {
        try {
            SimpleResolver r = resolver();
            r.setTimeout(Duration.ofMillis(300));
            Name first = Name.fromString(zones.keySet().iterator().next() + ".");
            Message m = r.send(Message.newQuery(Record.newRecord(first, Type.SOA, 1)));
            return m.getRcode() == Rcode.NOERROR && !m.getSection(Section.ANSWER).isEmpty();
        } catch (IOException notUpYet) {
            return false;
        }
    }

    public SimpleResolver resolver() throws IOException {
        SimpleResolver r = new SimpleResolver(new InetSocketAddress("127.0.0.1", port));
        r.setTimeout(Duration.ofSeconds(3));
        return r;
    }

    public int port() {
        return port;
    }

    /** host:port, the form of {@code meshdns.dns.upstreams}. */
    public String address() {
        return "127.0.0.1:" + port;
    }

    public String secret() {
        return secret;
    }

    public String algorithm() {
        return algorithm;
    }

    public List<String> zones() {
        return List.copyOf(zones.keySet());
    }

    /** Runs {@code dig +short} against this server; returns the answer lines, sorted. */
    public List<String> dig(String name, String type) throws IOException, InterruptedException {
        return dig(port, name, type);
    }

    /**
     * Runs {@code dig +short} (no recursion asked, one try of 2 s) against any server on loopback {@code port}, ours or
     * another backend's; returns the answer lines, sorted.
     */
    public static List<String> dig(int port, String name, String type) throws IOException, InterruptedException {
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
                "+noall", "+answer", "-y", tsigAlgorithmForDig() + ":" + keyName + ":" + secret, zone, "AXFR")
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
}
