package io.meshdns.testsupport.dns;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real single-member etcd (Debian's etcd-server) on free loopback ports with a temp data dir,
 * plus the few v3 JSON-gateway calls a test needs to look at (or seed) what a client wrote.
 */
public final class EtcdServer extends ChildProcess {

    private final int clientPort = LoopbackPorts.pick();
    private final int peerPort = LoopbackPorts.pick();
    private final HttpClient http = HttpClient.newHttpClient();

    public EtcdServer() throws IOException {
        super("etcd");
    }

    public EtcdServer start() throws IOException {
        String client = clientUrl();
        String peer = "http://127.0.0.1:" + peerPort;
        launch(List.of("etcd", "--name", "test", "--data-dir", dir.resolve("data").toString(),
                "--listen-client-urls", client, "--advertise-client-urls", client,
                "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                "--initial-cluster", "test=" + peer, "--log-level", "warn"), this::answers, Duration.ofSeconds(30));
        return this;
    }

    public String clientUrl() {
        return "http://127.0.0.1:" + clientPort;
    }

    private boolean answers() {
        try {
            return post("/v3/kv/range", "{\"key\":\"" + b64("/") + "\"}").contains("header");
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    public void put(String key, String value) throws IOException {
        post("/v3/kv/put", "{\"key\":\"" + b64(key) + "\",\"value\":\"" + b64(value) + "\"}");
    }

    /** Every key under the prefix with its value (sorted by key). */
    public Map<String, String> range(String prefix) throws IOException {
        byte[] end = prefix.getBytes(StandardCharsets.UTF_8);
        end[end.length - 1]++;
        String body = post("/v3/kv/range", "{\"key\":\"" + b64(prefix) + "\",\"range_end\":\""
                + Base64.getEncoder().encodeToString(end) + "\"}");
        var out = new TreeMap<String, String>();
        Matcher m = Pattern.compile("\"key\":\"([^\"]*)\".*?\"value\":\"([^\"]*)\"").matcher(body);
        while (m.find()) out.put(unb64(m.group(1)), unb64(m.group(2)));
        return out;
    }

    private String post(String path, String json) throws IOException {
        try {
            var r = http.send(HttpRequest.newBuilder(URI.create(clientUrl() + path)).timeout(Duration.ofSeconds(5))
                    .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) throw new IOException("etcd " + path + ": " + r.statusCode() + " " + r.body());
            return r.body();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String unb64(String s) {
        return new String(Base64.getDecoder().decode(s), StandardCharsets.UTF_8);
    }
}
