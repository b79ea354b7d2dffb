package io.meshdns.dns.discovery;

import io.meshdns.dns.InvalidConfigException;
import io.meshdns.testsupport.TestPki;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code meshdns.dns.discovery.tls.*} checked at start: each unusable value fails naming its key, with files made
 * by openssl. (The stream over TLS itself: integration-tests {@code DiscoveryTlsTest}, the packaged services.)
 */
class DiscoveryTlsTest {
    @TempDir
    static Path dir;
    static Vertx vertx;
    static TestPki pki;
    static Path[] client;

    @BeforeAll
    static void setUp() throws Exception {
        vertx = Vertx.vertx();
        pki = TestPki.ca(dir, "test");
        client = pki.issue("node", "node-a");
    }

    @AfterAll
    static void tearDown() {
        vertx.close();
    }

    static DiscoveryClientConfig.Tls tls(String ca, String serverName, String cert, String key) {
        return new DiscoveryClientConfig.Tls() {
            public Optional<String> caFile() {
                return Optional.ofNullable(ca);
            }

            public Optional<String> serverName() {
                return Optional.ofNullable(serverName);
            }

            public Optional<String> certFile() {
                return Optional.ofNullable(cert);
            }

            public Optional<String> keyFile() {
                return Optional.ofNullable(key);
            }
        };
    }

    private static String failure(String url, DiscoveryClientConfig.Tls tls) {
        return assertThrows(InvalidConfigException.class, () -> DiscoveryTls.of(vertx, url, tls)).getMessage();
    }

    @Test
    void aValidSetIsAccepted() {
        assertTrue(DiscoveryTls.of(vertx, "https://10.0.0.1:8443", tls(pki.caCert().toString(), "discovery.meshdns.svc",
                client[0].toString(), client[1].toString())).isPresent());
        assertTrue(DiscoveryTls.of(vertx, "https://discovery:8443", tls(null, null, null, null)).isPresent(), "JVM trust");
        assertTrue(DiscoveryTls.of(vertx, "http://discovery:8090", tls(null, null, null, null)).isEmpty());
        assertTrue(DiscoveryTls.of(vertx, "eventbus", tls(null, null, null, null)).isEmpty());
    }

    @Test
    void tlsKeysOnAPlainUrlAreRefusedRatherThanIgnored() {
        String m = failure("http://discovery:8090", tls(pki.caCert().toString(), null, null, null));
        assertTrue(m.startsWith("meshdns.dns.discovery.tls.ca-file: "), m);
        assertTrue(m.contains("not https"), m);
    }

    @Test
    void eachUnusableValueNamesItsKey() throws Exception {
        String https = "https://127.0.0.1:8443";
        assertTrue(failure(https, tls(dir.resolve("missing.crt").toString(), null, null, null))
                .startsWith("meshdns.dns.discovery.tls.ca-file: "));
        Path junk = Files.writeString(dir.resolve("junk.pem"), "not a certificate\n");
        assertTrue(failure(https, tls(junk.toString(), null, null, null)).startsWith("meshdns.dns.discovery.tls.ca-file: "));
        assertTrue(failure(https, tls(null, "bad name!", null, null)).startsWith("meshdns.dns.discovery.tls.server-name: "));
        assertTrue(failure(https, tls(null, null, client[0].toString(), null)).startsWith("meshdns.dns.discovery.tls.key-file: "));
        assertTrue(failure(https, tls(null, null, null, client[1].toString())).startsWith("meshdns.dns.discovery.tls.cert-file: "));
        assertTrue(failure(https, tls(null, null, junk.toString(), client[1].toString())).startsWith("meshdns.dns.discovery.tls.cert-file: "));
        String badKey = failure(https, tls(null, null, client[0].toString(), junk.toString()));
        assertTrue(badKey.startsWith("meshdns.dns.discovery.tls.key-file: "), badKey);
    }

    @Test
    void aChangedFileChangesTheFingerprint() throws Exception {
        DiscoveryTls t = DiscoveryTls.of(vertx, "https://127.0.0.1:1", tls(pki.caCert().toString(), null, null, null)).orElseThrow();
        String before = t.fingerprint();
        assertEquals(before, t.fingerprint());
        Files.setLastModifiedTime(pki.caCert(), java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 5000));
        assertTrue(t.changedSince(before));
    }
}
