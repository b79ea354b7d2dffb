package io.meshdns.it.dns;

import io.meshdns.testsupport.dns.LoopbackPorts;
import io.meshdns.testsupport.dns.UnboundServer;
import io.meshdns.it.testing.Dns;
import io.meshdns.it.testing.ServiceProcess;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cluster-DNS chain of the CoreDNS integration, with Unbound standing in for CoreDNS (which cannot run
 * here): Unbound is the cluster's resolver and forwards {@code cluster.local} and {@code service.entry} to
 * meshdns (what the Corefile's {@code forward cluster.local …} / {@code forward service.entry …} blocks do),
 * meshdns follows discovery-service on the bundled two-cluster example. A pod asking Unbound gets the mesh's
 * answers: a service that exists only in the other cluster, a ServiceEntry host's VIP, and NXDOMAIN passed
 * through unchanged.
 */
class ClusterDnsChainTest {
    private static final String TOKEN = "chain-token";

    @TempDir
    static Path dir;

    static ServiceProcess discovery;
    static ServiceProcess meshdns;
    static Process unbound;
    static Dns direct;
    static Dns viaUnbound;

    @BeforeAll
    static void start() throws Exception {
        discovery = new ServiceProcess("discovery", "discovery-service", dir)
                .property("meshdns.discovery.enabled-local-cluster", "false")
                .property("meshdns.discovery.manifest-dirs", "examples/clusters")
                .property("meshdns.discovery.shared-token", TOKEN)
                .property("meshdns.discovery.vip-file", dir.resolve("vips.txt").toString())
                .start();
        int dnsPort = LoopbackPorts.pick();
        meshdns = new ServiceProcess("meshdns", "dns-service", dir)
                .property("meshdns.dns.port", String.valueOf(dnsPort))
                .property("meshdns.dns.upstreams", "127.0.0.1:9")
                .property("meshdns.dns.discovery-url", discovery.httpUrl())
                .property("meshdns.dns.discovery-token", TOKEN)
                .property("meshdns.dns.cluster-name", "east")
                .start();
        direct = new Dns(dnsPort);
        Awaitility.await("meshdns has the catalog").atMost(Duration.ofSeconds(60)).ignoreExceptions()
                .until(() -> !direct.a("reviews.shop.svc.cluster.local").get(0).startsWith("["));

        int unboundPort = LoopbackPorts.pick();
        Path conf = dir.resolve("unbound.conf");
        Files.writeString(conf, """
                server:
                  interface: 127.0.0.1
                  port: %1$d
                %2$s
                  verbosity: 1
                  access-control: 127.0.0.0/8 allow
                  # meshdns listens on loopback; Unbound refuses to forward there unless told.
                  do-not-query-localhost: no
                  # the mesh zones are not signed: no DNSSEC validation for them (no validator module at all here)
                  module-config: "iterator"
                  domain-insecure: "cluster.local"
                  domain-insecure: "service.entry"
                forward-zone:
                  name: "cluster.local"
                  forward-addr: 127.0.0.1@%3$d
                forward-zone:
                  name: "service.entry"
                  forward-addr: 127.0.0.1@%3$d
                """.formatted(unboundPort, UnboundServer.foregroundOptions(dir), dnsPort));
        unbound = new ProcessBuilder("unbound", "-d", "-c", conf.toString()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("unbound.log").toFile()).start();
        Awaitility.await("unbound listening").atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> {
            if (!unbound.isAlive()) throw new IllegalStateException("unbound exited: " + Files.readString(dir.resolve("unbound.log")));
            try (Socket s = new Socket("127.0.0.1", unboundPort)) {
                return true;
            }
        });
        viaUnbound = new Dns(unboundPort);
    }

    @AfterAll
    static void stop() throws Exception {
        if (unbound != null) {
            unbound.destroy();
            if (!unbound.waitFor(10, TimeUnit.SECONDS)) unbound.destroyForcibly();
        }
        if (meshdns != null) meshdns.close();
        if (discovery != null) discovery.close();
    }

    @Test
    void aServiceOnlyInTheOtherClusterResolvesThroughTheClusterDns() {
        List<String> answer = viaUnbound.a("reviews.shop.svc.cluster.local");
        assertFalse(answer.get(0).startsWith("["), "via Unbound: " + answer);
        assertEquals(direct.a("reviews.shop.svc.cluster.local"), answer);
    }

    @Test
    void aServiceEntryHostGetsItsVipThroughTheClusterDns() {
        List<String> answer = viaUnbound.a("legacy.service.entry");
        assertEquals(1, answer.size(), answer.toString());
        assertTrue(answer.get(0).startsWith("240.240."), "VIP from 240.240.0.0/16: " + answer);
        assertEquals(direct.a("legacy.service.entry"), answer);
    }

    @Test
    void nxdomainFromTheMeshPassesThroughUnchanged() {
        Message m = viaUnbound.query("no-such-service.shop.svc.cluster.local", Type.A);
        assertEquals(Rcode.NXDOMAIN, m.getRcode(), m.toString());
        assertTrue(m.getSection(Section.AUTHORITY).stream().anyMatch(r -> r.getType() == Type.SOA), "negative answer carries the SOA");
    }
}
