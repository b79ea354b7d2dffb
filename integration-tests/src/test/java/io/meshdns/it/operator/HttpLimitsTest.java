package io.meshdns.it.operator;

import io.meshdns.testsupport.LogLines;
import io.meshdns.it.testing.RawHttp;
import io.meshdns.testsupport.QuarkusJarProcess;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The HTTP port can never starve DNS: a packaged dns-service with 1,024 descriptors (prlimit; about 110 are in use
 * after the start: jars, event loops, one upstream socket per family, the pool growing with forwarded queries) gets 700 idle HTTP
 * connections, and DNS over TCP and UDP is still answered, and once the flood's connections go idle past the
 * idle timeout the health endpoint answers again. Before the HTTP limits (no connection cap, a 30-minute idle
 * timeout) the same flood took every descriptor: DNS over TCP could no longer accept, and health failed.
 */
class HttpLimitsTest {
    private static final int DESCRIPTORS = 1024;
    private static final int FLOOD = 700;

    @Test
    void anIdleHttpFloodNeitherStarvesDnsNorHoldsThePort() throws Exception {
        try (QuarkusJarProcess dns = QuarkusJarProcess.module("dns-service").jvmOptions(QuarkusJarProcess.FAST_START_JVM)
                .commandPrefix("prlimit", "--nofile=" + DESCRIPTORS + ":" + DESCRIPTORS, "--")
                .property("quarkus.http.host", "127.0.0.1").property("quarkus.http.port", "0")
                // Shorter than the shipped 30 s, so the test waits seconds, not half a minute.
                .property("quarkus.http.idle-timeout", "3s")
                .property("meshdns.dns.port", "0")
                .property("meshdns.dns.upstreams", "127.0.0.1:9")
                .property("meshdns.dns.zone-files", QuarkusJarProcess.repositoryRoot().resolve("examples/zones/mesh.example.zone").toString())
                .start()) {
            int http = dns.awaitPort(LogLines.QUARKUS_HTTP_PORT, Duration.ofSeconds(90));
            int port = dns.awaitPort(LogLines.DNS_SERVICE_PORT, Duration.ofSeconds(90));
            List<Socket> flood = new ArrayList<>();
            try {
                int connected = 0;
                for (int i = 0; i < FLOOD; i++) {
                    Socket s = new Socket();
                    try {
                        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), http), 2_000);
                        connected++;
                    } catch (IOException e) {
                        // refused or timed out: the port is full, which is the point
                    }
                    flood.add(s);
                }
                assertTrue(connected > 0, "no flood connection got through");

                // While the flood's connections are held (a burst may briefly exhaust descriptors between the accept and
                // the close of connections over the cap, so allow a few seconds).
                await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                        .until(() -> ask(port, true).getRcode() == Rcode.NOERROR);
                assertEquals(Rcode.NOERROR, ask(port, false).getRcode(), "DNS over UDP during the flood");

                // The flood's connections are idle: the idle timeout closes them and the health endpoint answers.
                await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                        .until(() -> RawHttp.status(http, "/q/health/live") == 200);
                assertEquals(Rcode.NOERROR, ask(port, true).getRcode(), "DNS over TCP after the flood");
            } finally {
                for (Socket s : flood) s.close();
            }
        }
    }

    private static Message ask(int port, boolean tcp) throws IOException {
        SimpleResolver r = new SimpleResolver(InetAddress.getLoopbackAddress());
        r.setPort(port);
        r.setTCP(tcp);
        r.setTimeout(Duration.ofSeconds(3));
        return r.send(Message.newQuery(Record.newRecord(org.xbill.DNS.Name.fromConstantString("registry.mesh.example."), Type.A, DClass.IN)));
    }
}
