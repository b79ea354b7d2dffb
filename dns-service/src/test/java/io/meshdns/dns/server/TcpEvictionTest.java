package io.meshdns.dns.server;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.meshdns.dns.server.TcpTestClient.answeredFrom;
import static io.meshdns.dns.server.TcpTestClient.assertClosedByServer;
import static io.meshdns.dns.server.TcpTestClient.metric;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * RFC 7766 section 6.2.3: under pressure a server closes idle connections. A client that left more idle
 * connections than its cap (a resolver library that pools them) must still get a new query answered: the
 * least recently active idle one goes, not the new one. Idle timeout and age are out of reach here, so each
 * close counted is an eviction and the counts are exact.
 */
@QuarkusTest
@TestProfile(TcpEvictionProfile.class)
class TcpEvictionTest {
    @Inject
    DnsServer server;
    @Inject
    ListenerMetrics listenerMetrics;

    @Test
    void atTheCapsTheLeastRecentlyActiveIdleConnectionMakesRoom() throws Exception {
        int port = server.boundPort();
        await().atMost(Duration.ofSeconds(10)).until(() -> listenerMetrics.open().get() == 0);
        double evictedBefore = metric("meshdns_dns_tcp_connections_closed_total{", "reason=\"evicted-idle\"");
        List<Socket> open = new ArrayList<>();
        try {
            // Per client: twice the cap of idle connections from one address, each answered in turn.
            for (int i = 0; i < 2 * TcpLimitsProfile.MAX_PER_CLIENT; i++) {
                open.add(answeredFrom("127.0.0.1", port));
            }
            // The oldest ones were closed to make room, the newest are still open.
            for (int i = 0; i < TcpLimitsProfile.MAX_PER_CLIENT; i++) {
                assertClosedByServer(open.get(i));
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> listenerMetrics.open().get() == TcpLimitsProfile.MAX_PER_CLIENT);
            assertEquals(evictedBefore + TcpLimitsProfile.MAX_PER_CLIENT,
                    metric("meshdns_dns_tcp_connections_closed_total{", "reason=\"evicted-idle\""));
            // Globally: other clients fill the rest; a new client takes the place of the least recently active.
            for (int i = TcpLimitsProfile.MAX_PER_CLIENT; i < TcpLimitsProfile.MAX_CONNECTIONS; i++) {
                open.add(answeredFrom("127.0.0.2", port));
            }
            open.add(answeredFrom("127.0.0.3", port));
            assertClosedByServer(open.get(TcpLimitsProfile.MAX_PER_CLIENT)); // 127.0.0.1's oldest surviving one
            await().atMost(Duration.ofSeconds(5)).until(() -> listenerMetrics.open().get() == TcpLimitsProfile.MAX_CONNECTIONS);
            assertEquals(TcpLimitsProfile.MAX_CONNECTIONS, metric("meshdns_dns_tcp_connections "));
            assertEquals(evictedBefore + TcpLimitsProfile.MAX_PER_CLIENT + 1,
                    metric("meshdns_dns_tcp_connections_closed_total{", "reason=\"evicted-idle\""));
        } finally {
            for (Socket s : open) s.close();
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> listenerMetrics.open().get() == 0);
    }
}
