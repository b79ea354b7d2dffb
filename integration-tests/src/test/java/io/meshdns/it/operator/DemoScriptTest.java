package io.meshdns.it.operator;

import com.sun.net.httpserver.HttpServer;
import io.meshdns.testsupport.dns.LoopbackPorts;
import io.meshdns.testsupport.QuarkusJarProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code bin/demo} never reports success for a port it does not hold: a taken port stops it before it starts
 * anything, with a message naming the port and the variable that moves it; and an old process that answers
 * the readiness URL (the demo's past failure: its own JVM died with "Address already in use" while the old
 * one passed the check) is caught after the start by checking which PID listens.
 */
class DemoScriptTest {
    @TempDir
    Path state;

    @Test
    void aTakenDnsPortStopsTheDemoBeforeItStartsAnything() throws Exception {
        try (DatagramSocket taken = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            Result r = demo(Map.of("MESHDNS_PORT", String.valueOf(taken.getLocalPort())));
            assertNotEquals(0, r.exit, r.output);
            assertTrue(r.output.contains("demo: port " + taken.getLocalPort() + "/udp (dns-service) is already in use"), r.output);
            assertTrue(r.output.contains("MESHDNS_PORT=<free port>"), r.output);
            assertFalse(r.output.contains("starting"), "started a service anyway: " + r.output);
            assertNoSuccess(r);
        }
    }

    @Test
    void aTakenHttpPortStopsTheDemoBeforeItStartsAnything() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            Result r = demo(Map.of("MESHDNS_HTTP_PORT", String.valueOf(taken.getLocalPort())));
            assertNotEquals(0, r.exit, r.output);
            assertTrue(r.output.contains("demo: port " + taken.getLocalPort() + "/tcp (HTTP of dns-service) is already in use"), r.output);
            assertTrue(r.output.contains("MESHDNS_HTTP_PORT=<free port>"), r.output);
            assertNoSuccess(r);
        }
    }

    /** The pre-start check skipped: an impostor answering /q/health/ready on dns-service's HTTP port. */
    @Test
    void anOldProcessAnsweringTheReadinessUrlIsNotTakenForTheDemo() throws Exception {
        HttpServer impostor = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        impostor.createContext("/", exchange -> {
            byte[] body = "{\"status\":\"UP\"}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        impostor.start();
        try {
            Result r = demo(Map.of("MESHDNS_HTTP_PORT", String.valueOf(impostor.getAddress().getPort()),
                    "MESHDNS_DEMO_PORT_CHECK", "0"));
            assertNotEquals(0, r.exit, r.output);
            assertTrue(r.output.contains("demo: dns-service (pid "), r.output);
            assertTrue(r.output.contains("is not the process listening on tcp:" + impostor.getAddress().getPort()), r.output);
            assertNoSuccess(r);
        } finally {
            impostor.stop(0);
        }
    }

    private static void assertNoSuccess(Result r) {
        assertFalse(r.output.contains("demo: ready"), "reported success: " + r.output);
        assertFalse(r.output.contains("Try, in another shell"), "printed the success banner: " + r.output);
    }

    /** Runs bin/demo on free ports (overridden by {@code env}) and waits, at most 120 s, for it to exit. */
    private Result demo(Map<String, String> env) throws IOException, InterruptedException {
        Path root = QuarkusJarProcess.repositoryRoot();
        Path log = state.resolve("demo-output.txt");
        ProcessBuilder pb = new ProcessBuilder(root.resolve("bin/demo").toString()).directory(root.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("MESHDNS_PORT", String.valueOf(LoopbackPorts.pick()));
        pb.environment().put("MESHDNS_HTTP_PORT", String.valueOf(LoopbackPorts.pick()));
        pb.environment().put("MESHDNS_DISCOVERY_PORT", String.valueOf(LoopbackPorts.pick()));
        pb.environment().put("MESHDNS_DEMO_STATE", state.toString());
        pb.environment().put("MESHDNS_DEMO_BUILD", "0");
        pb.environment().put("MESHDNS_DEMO_START_TIMEOUT", "60");
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroy(); // the demo's trap stops the services it started
            p.waitFor(20, TimeUnit.SECONDS);
            throw new AssertionError("bin/demo did not exit within 120 s:\n" + Files.readString(log));
        }
        assertFalse(Files.exists(state.resolve("demo.pid")), "the demo left its pid file behind");
        return new Result(p.exitValue(), Files.readString(log));
    }

    private record Result(int exit, String output) {
    }
}
