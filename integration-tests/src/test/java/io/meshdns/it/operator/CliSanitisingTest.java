package io.meshdns.it.operator;

import com.sun.net.httpserver.HttpServer;
import io.meshdns.testsupport.QuarkusJarProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code bin/meshdns} prints what a service sends, and names come from objects anyone with create rights
 * in a namespace made: a terminal escape in them (title, colours, cursor moves, OSC 52 clipboard writes)
 * must reach the operator's terminal as visible text, never as control bytes. The server here answers
 * like a dns-service would with such names (the CLI is the thing under test: whatever any server sends).
 */
class CliSanitisingTest {
    static final String ESC = "\u001b";
    static HttpServer server;

    @BeforeAll
    static void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/v1/explain", x -> reply(x.getResponseBody(), x, "application/json",
                "{\"name\":\"a\\u001b]52;c;aGk=\\u0007.shop.svc.cluster.local.\",\"type\":\"A\",\"client\":\"127.0.0.1\","
                        + "\"snapshotVersion\":1,\"rcode\":\"NOERROR\",\"answer\":[\"x\\u001b[2J 30 IN A 10.0.0.1\"],"
                        + "\"rule\":\"service\",\"why\":\"bell\\u0007 and\\rreturn and \\u009b C1\","
                        + "\"sources\":[{\"cluster\":\"east\",\"kind\":\"Service\",\"namespace\":\"shop\",\"name\":\"x\\u001b[31mred\"}]}"));
        server.createContext("/status", x -> reply(x.getResponseBody(), x, "text/html",
                "<html><body><h1>status</h1><table><tr><td>web" + ESC + "]0;owned" + "\u0007</td><td>1</td></tr></table></body></html>"));
        server.start();
    }

    private static void reply(OutputStream body, com.sun.net.httpserver.HttpExchange x, String type, String text) throws IOException {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().add("Content-Type", type);
        x.sendResponseHeaders(200, b.length);
        body.write(b);
        x.close();
    }

    @AfterAll
    static void stop() {
        server.stop(0);
    }

    private static String run(String... args) throws Exception {
        String[] cmd = new String[args.length + 3];
        cmd[0] = QuarkusJarProcess.repositoryRoot().resolve("bin/meshdns").toString();
        System.arraycopy(args, 0, cmd, 1, args.length);
        cmd[args.length + 1] = "--url";
        cmd[args.length + 2] = "http://127.0.0.1:" + server.getAddress().getPort();
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    private static void assertNoControlBytes(String out) {
        for (int i = 0; i < out.length(); i++) {
            char c = out.charAt(i);
            boolean control = (c < 0x20 && c != '\n') || (c >= 0x7f && c <= 0x9f);
            assertFalse(control, String.format("raw control byte U+%04X at %d in:%n%s", (int) c, i, out));
        }
    }

    @Test
    void explainPrintsEscapesAsText() throws Exception {
        String out = run("explain", "a.shop.svc.cluster.local");
        assertNoControlBytes(out);
        assertTrue(out.contains("\\x1b]52;c;aGk=\\x07.shop.svc.cluster.local."), out);
        assertTrue(out.contains("source: east/Service/shop/x\\x1b[31mred"), out);
    }

    @Test
    void statusPrintsEscapesAsText() throws Exception {
        String out = run("status");
        assertNoControlBytes(out);
        assertTrue(out.contains("web\\x1b]0;owned\\x07"), out);
    }
}
