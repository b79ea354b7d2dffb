package io.meshdns.testsupport.dns;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * A real PowerDNS Authoritative ({@code pdns_server} with the gsqlite3 backend, Debian's
 * pdns-server + pdns-backend-sqlite3) in a temp dir: DNS and its HTTP API on free loopback ports,
 * a random API key. The database is created from the schema Debian ships.
 */
public final class PowerDnsServer extends ChildProcess {

    static final List<Path> SCHEMAS = List.of(Path.of("/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql"),
            Path.of("/usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql"));

    private final int dnsPort = LoopbackPorts.pick();
    private final int apiPort = LoopbackPorts.pick();
    private final String apiKey = UUID.randomUUID().toString();
    private final HttpClient http = HttpClient.newHttpClient();

    public PowerDnsServer() throws IOException {
        super("pdns");
    }

    public PowerDnsServer start() throws IOException, InterruptedException {
        Path db = dir.resolve("pdns.sqlite3");
        if (!Files.exists(db)) {
            Path schema = SCHEMAS.stream().filter(Files::exists).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no gsqlite3 schema: install pdns-backend-sqlite3"));
            Process p = new ProcessBuilder("sqlite3", db.toString()).redirectInput(schema.toFile()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (p.waitFor() != 0) throw new IllegalStateException("sqlite3 failed: " + out);
        }
        Files.writeString(dir.resolve("pdns.conf"), String.join("\n",
                "launch=gsqlite3", "gsqlite3-database=" + db, "api=yes", "api-key=" + apiKey, "webserver=yes",
                "webserver-address=127.0.0.1", "webserver-port=" + apiPort, "webserver-allow-from=127.0.0.0/8",
                "local-address=127.0.0.1", "local-port=" + dnsPort, "socket-dir=" + dir, "guardian=no", "daemon=no",
                "disable-syslog=yes", "loglevel=4", "") );
        launch(List.of("/usr/sbin/pdns_server", "--config-dir=" + dir), this::answers, Duration.ofSeconds(20));
        return this;
    }

    private boolean answers() {
        try {
            return http.send(request("zones").GET().build(), HttpResponse.BodyHandlers.ofString()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(apiUrl() + "/api/v1/servers/localhost/" + path)).header("X-API-Key", apiKey)
                .timeout(Duration.ofSeconds(5));
    }

    /** Creates a Native zone with one NS record and, optionally, RRsets as PowerDNS API JSON objects. */
    public void createZone(String zone, String... rrsetsJson) throws IOException, InterruptedException {
        String name = zone.endsWith(".") ? zone : zone + ".";
        String body = "{\"name\":\"" + name + "\",\"kind\":\"Native\",\"nameservers\":[\"ns1." + name + "\"],\"rrsets\":["
                + String.join(",", rrsetsJson) + "]}";
        var r = http.send(request("zones").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 201) throw new IllegalStateException("creating zone " + zone + ": " + r.statusCode() + " " + r.body());
    }

    /** The zone as the API returns it (JSON text). */
    public String zoneJson(String zone) throws IOException, InterruptedException {
        String name = zone.endsWith(".") ? zone : zone + ".";
        return http.send(request("zones/" + name).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    public String apiUrl() {
        return "http://127.0.0.1:" + apiPort;
    }

    public String apiKey() {
        return apiKey;
    }

    public int dnsPort() {
        return dnsPort;
    }
}
