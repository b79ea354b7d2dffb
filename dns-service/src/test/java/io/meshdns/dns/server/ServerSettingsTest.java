package io.meshdns.dns.server;

import io.meshdns.dns.InvalidConfigException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ServerSettingsTest {

    record Config(String bindAddress, String port, List<String> allowedClients, String payload, String idle,
                  String reuse, String drainValue, String maxAge, String udpWorkers) implements ServerConfig {
        Config(String bindAddress, String port, List<String> allowedClients, String payload, String idle) {
            this(bindAddress, port, allowedClients, payload, idle, "false", null, "2m");
        }

        Config(String bindAddress, String port, List<String> allowedClients, String payload, String idle,
               String reuse, String drainValue, String maxAge) {
            this(bindAddress, port, allowedClients, payload, idle, reuse, drainValue, maxAge, "1");
        }

        @Override
        public Edns edns() {
            return () -> payload;
        }

        @Override
        public Tcp tcp() {
            return new Tcp() {
                @Override
                public String idleTimeout() {
                    return idle;
                }

                @Override
                public String maxConnections() {
                    return "1024";
                }

                @Override
                public String maxConnectionsPerClient() {
                    return "32";
                }

                @Override
                public String maxConnectionAge() {
                    return maxAge;
                }

                @Override
                public String outputBuffer() {
                    return "65536";
                }
            };
        }

        @Override
        public String reusePort() {
            return reuse;
        }

        @Override
        public java.util.Optional<String> drain() {
            return java.util.Optional.ofNullable(drainValue);
        }

        @Override
        public Udp udp() {
            return new Udp() {
                @Override
                public String receiveBuffer() {
                    return "4194304";
                }

                @Override
                public String answerMemoEntries() {
                    return "100000";
                }
            };
        }

        @Override
        public boolean queryLog() {
            return false;
        }
    }

    private static Config valid() {
        return new Config("127.0.0.1", "5353", List.of("127.0.0.0/8", "::1/128"), "1232", "10s");
    }

    @Test
    void defaultsAreValid() {
        ServerSettings s = ServerSettings.from(valid());
        assertEquals(5353, s.port());
        assertEquals(Duration.ofSeconds(10), s.tcpIdleTimeout());
        assertTrue(s.acl().allows("127.0.0.9"));
        assertTrue(s.acl().allows("::1"));
        assertTrue(s.acl().allows("::ffff:127.0.0.1"), "IPv4-mapped sender on a dual-stack socket");
        assertFalse(s.acl().allows("10.0.0.1"));
        assertFalse(s.acl().allows("::2"));
    }

    @Test
    void ipv6BindAddress() {
        ServerSettings s = ServerSettings.from(new Config("[::1]", "0", List.of("::1/128"), "1232", "500ms"));
        assertTrue(s.ipv6());
        assertEquals("::1", s.bindAddress());
        assertEquals(Duration.ofMillis(500), s.tcpIdleTimeout());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
            "bad bind address; localhost;   5353;  127.0.0.0/8;   1232; 10s; meshdns.dns.bind-address",
            "port not a number; 127.0.0.1;  dns;   127.0.0.0/8;   1232; 10s; meshdns.dns.port",
            "port too big;     127.0.0.1;   70000; 127.0.0.0/8;   1232; 10s; meshdns.dns.port",
            "bad cidr;         127.0.0.1;   5353;  10.0.0.0/33;   1232; 10s; meshdns.dns.allowed-clients",
            "not an address;   127.0.0.1;   5353;  nothing/8;     1232; 10s; meshdns.dns.allowed-clients",
            "payload below 512; 127.0.0.1;  5353;  127.0.0.0/8;   100;  10s; meshdns.dns.edns.max-udp-payload",
            "bad idle timeout; 127.0.0.1;   5353;  127.0.0.0/8;   1232; soon; meshdns.dns.tcp.idle-timeout",
            "zero idle timeout; 127.0.0.1;  5353;  127.0.0.0/8;   1232; 0s; meshdns.dns.tcp.idle-timeout",
    })
    void invalidValuesNameTheirKey(String what, String bind, String port, String cidr, String payload, String idle,
                                   String key) {
        InvalidConfigException e = assertThrows(InvalidConfigException.class,
                () -> ServerSettings.from(new Config(bind, port, List.of(cidr), payload, idle)));
        assertEquals(key, e.key());
        assertTrue(e.getMessage().startsWith(key + ": "), e.getMessage());
    }

    @Test
    void listenerLifecycleKeys() {
        ServerSettings defaults = ServerSettings.from(valid());
        assertFalse(defaults.reusePort());
        assertEquals(Duration.ZERO, defaults.drain(), "without reuse-port nothing takes over: stop at once");
        assertEquals(Duration.ofSeconds(5), ServerSettings.from(new Config("127.0.0.1", "53", List.of(), "1232", "10s",
                "true", null, "2m")).drain(), "with reuse-port the default drain");
        assertEquals(Duration.ofMinutes(2), defaults.tcp().maxConnectionAge());
        assertEquals(1024, defaults.tcp().maxConnections());
        assertEquals(32, defaults.tcp().maxConnectionsPerClient());
        ServerSettings s = ServerSettings.from(new Config("127.0.0.1", "53", List.of(), "1232", "10s", "true", "0", "30s"));
        assertTrue(s.reusePort());
        assertEquals(Duration.ZERO, s.drain());
        assertEquals(Duration.ofSeconds(30), s.tcp().maxConnectionAge());
    }

    @Test
    void udpWorkersAreOneByDefaultAndSeveralNeedReusePort() {
        ServerSettings defaults = ServerSettings.from(valid());
        assertEquals(1, defaults.udpWorkers());
        assertFalse(defaults.udpReusePort());
        ServerSettings two = ServerSettings.from(new Config("127.0.0.1", "53", List.of(), "1232", "10s", "false", null, "2m", " 2 "));
        assertEquals(2, two.udpWorkers());
        assertTrue(two.udpReusePort(), "two sockets on one port need SO_REUSEPORT");
        assertFalse(two.reusePort(), "but TCP stays as configured");
        assertEquals(64, ServerSettings.from(new Config("127.0.0.1", "53", List.of(), "1232", "10s", "false", null, "2m", "64")).udpWorkers());
        assertEquals(2, two.withBindAddresses(List.of("127.0.0.2")).udpWorkers(), "kept when node-local wiring moves the listeners");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "0|meshdns.dns.udp-workers: 0 is outside 1..64",
            "-2|meshdns.dns.udp-workers: -2 is outside 1..64",
            "65|meshdns.dns.udp-workers: 65 is outside 1..64",
            "two|meshdns.dns.udp-workers: 'two' is not a number"})
    void badUdpWorkersNameTheKey(String workers, String message) {
        InvalidConfigException e = assertThrows(InvalidConfigException.class, () -> ServerSettings.from(
                new Config("127.0.0.1", "53", List.of(), "1232", "10s", "false", null, "2m", workers)));
        assertEquals(ServerConfig.UDP_WORKERS, e.key());
        assertEquals(message, e.getMessage());
        assertFalse(e.getMessage().contains("\n"), "one line");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "yes|5s|2m|meshdns.dns.reuse-port: 'yes' is neither true nor false",
            "false|-1s|2m|meshdns.dns.drain: '-1s' must be 0 or more",
            "false|soon|2m|meshdns.dns.drain: 'soon' is not a duration",
            "false|5s|0|meshdns.dns.tcp.max-connection-age: '0' must be positive"})
    void badLifecycleValuesNameTheirKey(String reuse, String drain, String age, String message) {
        InvalidConfigException e = assertThrows(InvalidConfigException.class, () -> ServerSettings.from(
                new Config("127.0.0.1", "53", List.of(), "1232", "10s", reuse, drain, age)));
        assertTrue(e.getMessage().startsWith(message), e.getMessage());
    }
}
