package io.meshdns.exposure.provider.webhook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.plan.DomainFilter;
import io.meshdns.exposure.plan.Policy;
import io.meshdns.exposure.provider.ProviderException;
import io.meshdns.exposure.registry.TxtNameMapper;
import io.meshdns.exposure.registry.TxtRegistry;
import io.meshdns.exposure.source.Desired;
import io.meshdns.exposure.sync.Reconciler;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The webhook client against a hostile provider over real sockets: a body that trickles in, a body far
 * above the cap, a {@code dnsName} carrying a newline, a redirect, credentials in the URL. Each must
 * end the request within its deadline and bounds, and nothing hostile may be logged raw or sent back.
 */
class HostileWebhookTest {

    static final String MT = WebhookProvider.MEDIA_TYPE;

    /** What the hostile server does with one request: write the whole response to {@code out}. */
    interface Responder {
        void respond(String method, String path, String body, OutputStream out) throws IOException, InterruptedException;
    }

    /** A raw HTTP/1.1 server on loopback, one thread per connection, closing after each response. */
    static final class HostileServer implements AutoCloseable {
        final ServerSocket socket;
        final List<String> requests = Collections.synchronizedList(new ArrayList<>());
        final List<String> headers = Collections.synchronizedList(new ArrayList<>());
        final AtomicLong bodyBytesWritten = new AtomicLong();
        private final Thread acceptor;

        HostileServer(Responder responder) throws IOException {
            socket = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
            acceptor = new Thread(() -> {
                while (!socket.isClosed()) {
                    try {
                        Socket s = socket.accept();
                        Thread t = new Thread(() -> serve(s, responder), "hostile-webhook-conn");
                        t.setDaemon(true);
                        t.start();
                    } catch (IOException e) {
                        return;
                    }
                }
            }, "hostile-webhook");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        private void serve(Socket s, Responder responder) {
            try (s) {
                s.setSoTimeout(10_000);
                InputStream in = new BufferedInputStream(s.getInputStream());
                String requestLine = line(in);
                int length = 0;
                for (String h = line(in); !h.isEmpty(); h = line(in)) {
                    headers.add(h);
                    if (h.toLowerCase().startsWith("content-length:")) length = Integer.parseInt(h.substring(15).trim());
                }
                byte[] body = in.readNBytes(Math.min(length, 1 << 20));
                String[] parts = requestLine.split(" ");
                requests.add(parts[0] + " " + parts[1]);
                responder.respond(parts[0], parts[1], new String(body, StandardCharsets.UTF_8), s.getOutputStream());
            } catch (IOException | InterruptedException | RuntimeException e) {
                // the client hung up: that is what most of these tests want
            }
        }

        private static String line(InputStream in) throws IOException {
            var b = new StringBuilder();
            for (int c = in.read(); c != -1 && c != '\n'; c = in.read()) {
                if (c != '\r') b.append((char) c);
                if (b.length() > 8192) throw new IOException("header line too long");
            }
            return b.toString();
        }

        String url() {
            return "http://127.0.0.1:" + socket.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    static void respond(OutputStream out, int status, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        out.write(("HTTP/1.1 " + status + " X\r\nContent-Type: " + MT + "\r\nContent-Length: " + b.length
                + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(b);
        out.flush();
    }

    /** Negotiation answered normally; {@code records} decides GET /records. */
    static Responder negotiatingThen(Responder records) {
        return (method, path, body, out) -> {
            if (path.equals("/")) {
                respond(out, 200, "{}");
            } else {
                records.respond(method, path, body, out);
            }
        };
    }

    @Test
    void aBodyThatTricklesInIsCutAtTheRequestDeadline() throws Exception {
        // 200 bytes of valid JSON at one byte per 50 ms: 10 s in all, against a 1 s deadline
        try (var server = new HostileServer(negotiatingThen((method, path, body, out) -> {
            int n = 200;
            out.write(("HTTP/1.1 200 OK\r\nContent-Type: " + MT + "\r\nContent-Length: " + n + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            for (int i = 0; i < n; i++) {
                out.write(i == 0 ? '[' : i == n - 1 ? ']' : ' ');
                out.flush();
                Thread.sleep(50);
            }
        }))) {
            var provider = new WebhookProvider(URI.create(server.url()), Duration.ofSeconds(1), 1);
            long start = System.nanoTime();
            ProviderException e = assertThrows(ProviderException.class, provider::records);
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertTrue(ms < 4_000, "cut after " + ms + " ms");
            assertTrue(e.getMessage().contains("deadline"), e.getMessage());
        }
    }

    @Test
    void aBodyOf300MegabytesIsRefusedAtTheCapWithoutReadingIt() throws Exception {
        long total = 300L << 20;
        var written = new AtomicLong();
        try (var server = new HostileServer(negotiatingThen((method, path, body, out) -> {
            // chunked, so no Content-Length announces the size: the client has to count
            out.write(("HTTP/1.1 200 OK\r\nContent-Type: " + MT + "\r\nTransfer-Encoding: chunked\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            byte[] chunk = new byte[64 * 1024];
            java.util.Arrays.fill(chunk, (byte) ' ');
            chunk[0] = '[';
            byte[] head = (Integer.toHexString(chunk.length) + "\r\n").getBytes(StandardCharsets.US_ASCII);
            for (long sent = 0; sent < total; sent += chunk.length) {
                out.write(head);
                out.write(chunk);
                out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                written.addAndGet(chunk.length);
                chunk[0] = ' ';
            }
            out.write("1\r\n]\r\n0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
        }))) {
            var provider = new WebhookProvider(URI.create(server.url()), Duration.ofSeconds(20), 1);
            ProviderException e = assertThrows(ProviderException.class, provider::records);
            assertTrue(e.getMessage().contains("larger than 33554432 bytes"), e.getMessage());
            Thread.sleep(200);
            assertTrue(written.get() < total / 2, "the client stopped reading: " + written.get() + " bytes written");
        }
    }

    @Test
    void aContentLengthAboveTheConfiguredCapIsRefusedBeforeTheBody() throws Exception {
        try (var server = new HostileServer(negotiatingThen((method, path, body, out) -> {
            out.write(("HTTP/1.1 200 OK\r\nContent-Type: " + MT + "\r\nContent-Length: " + (2 << 20) + "\r\n\r\n[").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Thread.sleep(5_000);
        }))) {
            var provider = new WebhookProvider(URI.create(server.url()), Duration.ofSeconds(10), 1, 1 << 20);
            long start = System.nanoTime();
            ProviderException e = assertThrows(ProviderException.class, provider::records);
            assertTrue((System.nanoTime() - start) / 1_000_000 < 3_000, "refused at the headers");
            assertTrue(e.getMessage().contains("larger than 1048576 bytes"), e.getMessage());
        }
    }

    @Test
    void aDnsNameWithANewlineIsRefusedAndNeverSentBackAsADelete() throws Exception {
        String owned = "heritage=external-dns,external-dns/owner=me,external-dns/resource=service/default/evil";
        String evil = "evil.example.org\\nINFO forged line";
        String records = "[{\"dnsName\":\"" + evil + "\",\"recordType\":\"A\",\"targets\":[\"192.0.2.1\"]},"
                + "{\"dnsName\":\"a-" + evil + "\",\"recordType\":\"TXT\",\"targets\":[\"\\\"" + owned.replace("\"", "") + "\\\"\"]},"
                + "{\"dnsName\":\"bad..example.org\",\"recordType\":\"A\",\"targets\":[\"192.0.2.2\"]},"
                + "{\"dnsName\":\"" + "x".repeat(64) + ".example.org\",\"recordType\":\"A\",\"targets\":[\"192.0.2.3\"]},"
                + "{\"dnsName\":\"ok.example.org\",\"recordType\":\"A\",\"targets\":[\"192.0.2.4\"]},"
                + "{\"dnsName\":\"*.ok.example.org\",\"recordType\":\"A\",\"targets\":[\"192.0.2.5\"]},"
                + "{\"dnsName\":\"_svc._tcp.example.org\",\"recordType\":\"SRV\",\"targets\":[\"0 0 80 ok.example.org\"]}]";
        var posted = Collections.synchronizedList(new ArrayList<String>());
        try (var server = new HostileServer(negotiatingThen((method, path, body, out) -> {
            switch (method + " " + path) {
                case "GET /records" -> respond(out, 200, records);
                case "POST /adjustendpoints" -> respond(out, 200, body);
                case "POST /records" -> {
                    posted.add(body);
                    out.write("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                }
                default -> respond(out, 404, "{}");
            }
        }))) {
            var provider = new WebhookProvider(URI.create(server.url()), Duration.ofSeconds(5), 1);
            List<Endpoint> read = provider.records();
            assertEquals(List.of("ok.example.org", "*.ok.example.org", "_svc._tcp.example.org"),
                    read.stream().map(Endpoint::dnsName).toList());

            var r = new Reconciler(new TxtRegistry(provider, "me", TxtNameMapper.plain(), 0), Policy.SYNC, DomainFilter.ALL, false);
            r.reconcile(Desired.of());
            for (String body : posted) {
                assertFalse(body.contains("evil"), "a refused name was sent back: " + body);
            }
        }
    }

    @Test
    void theSafeFormOfAHostileNameHasNoControlCharacters() {
        assertEquals("evil\\nINFO forged\\u001b[31m", EndpointJson.printable("evil\nINFO forged\u001b[31m"));
        String longName = "y".repeat(1000);
        assertTrue(EndpointJson.printable(longName).length() < 300);
    }

    @Test
    void aRedirectIsAPermanentFailureAndNotFollowedOrRetried() throws Exception {
        try (var server = new HostileServer(negotiatingThen((method, path, body, out) -> {
            out.write(("HTTP/1.1 307 Temporary Redirect\r\nLocation: /records\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
        }))) {
            var provider = new WebhookProvider(URI.create(server.url()), Duration.ofSeconds(5), 5);
            ProviderException e = assertThrows(ProviderException.class, provider::records);
            assertTrue(e.getMessage().contains("307"), e.getMessage());
            assertEquals(List.of("GET /", "GET /records"), server.requests, "neither followed nor retried");
        }
    }

    @Test
    void credentialsInTheUrlAreSentAsBasicAuthAndNeverPrinted() throws Exception {
        try (var server = new HostileServer(negotiatingThen((method, path, body, out) -> respond(out, 404, "{\"e\":1}")))) {
            URI withCredentials = URI.create(server.url().replace("http://", "http://hook-user:s3cr%65t-pass@"));
            var provider = new WebhookProvider(withCredentials, Duration.ofSeconds(5), 1);
            ProviderException e = assertThrows(ProviderException.class, provider::records);
            assertTrue(e.getMessage().contains("404"), e.getMessage());
            assertFalse(e.getMessage().contains("s3cr"), e.getMessage());
            assertFalse(e.getMessage().contains("hook-user"), e.getMessage());
            assertFalse(provider.describe().contains("s3cr"), provider.describe());
            assertTrue(provider.describe().contains("127.0.0.1:" + server.socket.getLocalPort()), provider.describe());
            String basic = "Authorization: Basic " + Base64.getEncoder().encodeToString("hook-user:s3cret-pass".getBytes(StandardCharsets.UTF_8));
            assertTrue(server.headers.contains(basic), "Go's client sends URL credentials as Basic auth: " + server.headers);
        }
    }
}
