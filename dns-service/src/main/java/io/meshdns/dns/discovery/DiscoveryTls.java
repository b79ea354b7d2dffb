package io.meshdns.dns.discovery;

import io.meshdns.dns.InvalidConfigException;
import io.vertx.core.Vertx;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.core.net.SSLOptions;

import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The TLS settings of an {@code https} discovery feed ({@code meshdns.dns.discovery.tls.*}), checked at start:
 * every file must exist and parse, cert-file and key-file come together, and TLS keys on a plain {@code http}
 * URL are refused (the operator asked for protection the URL would not give; there is never a plain-text
 * fallback). The files are reread when they change ({@link #changedSince}), so a rotated CA bundle or client
 * certificate is used from the next connection without a restart.
 */
final class DiscoveryTls {
    static final String CA_FILE = "meshdns.dns.discovery.tls.ca-file";
    static final String SERVER_NAME = "meshdns.dns.discovery.tls.server-name";
    static final String CERT_FILE = "meshdns.dns.discovery.tls.cert-file";
    static final String KEY_FILE = "meshdns.dns.discovery.tls.key-file";
    private static final Pattern HOST_NAME = Pattern.compile(
            "(?i)(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?(\\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?)*\\.?");

    private final Optional<Path> caFile;
    private final Optional<String> serverName;
    private final Optional<Path> certFile;
    private final Optional<Path> keyFile;

    private DiscoveryTls(Optional<Path> caFile, Optional<String> serverName, Optional<Path> certFile, Optional<Path> keyFile) {
        this.caFile = caFile;
        this.serverName = serverName;
        this.certFile = certFile;
        this.keyFile = keyFile;
    }

    /** The settings for this URL, or empty for {@code http} and the event bus. Throws naming the key when unusable. */
    static Optional<DiscoveryTls> of(Vertx vertx, String url, DiscoveryClientConfig.Tls config) {
        Optional<String> ca = nonBlank(config.caFile());
        Optional<String> name = nonBlank(config.serverName());
        Optional<String> cert = nonBlank(config.certFile());
        Optional<String> key = nonBlank(config.keyFile());
        boolean https = url != null && url.trim().toLowerCase().startsWith("https:");
        if (!https) {
            String set = ca.isPresent() ? CA_FILE : name.isPresent() ? SERVER_NAME : cert.isPresent() ? CERT_FILE : key.isPresent() ? KEY_FILE : null;
            if (set != null) {
                String value = ca.or(() -> name).or(() -> cert).or(() -> key).orElseThrow();
                throw new InvalidConfigException(set, "'" + value + "' is set but meshdns.dns.discovery-url is not https://"
                        + " (the feed would be plain text)");
            }
            return Optional.empty();
        }
        name.ifPresent(n -> {
            if (!HOST_NAME.matcher(n).matches() && !isIpLiteral(n)) {
                throw new InvalidConfigException(SERVER_NAME, "'" + n + "' is not a host name or IP address");
            }
        });
        if (cert.isPresent() != key.isPresent()) {
            String missing = cert.isPresent() ? KEY_FILE : CERT_FILE;
            String given = cert.isPresent() ? CERT_FILE + "=" + cert.get() : KEY_FILE + "=" + key.get();
            throw new InvalidConfigException(missing, "unset, but " + given + " is set (a client certificate needs both)");
        }
        DiscoveryTls tls = new DiscoveryTls(ca.map(Path::of), name, cert.map(Path::of), key.map(Path::of));
        tls.caFile.ifPresent(f -> checkCertificates(CA_FILE, f));
        tls.certFile.ifPresent(f -> checkCertificates(CERT_FILE, f));
        if (tls.keyFile.isPresent()) {
            readable(KEY_FILE, tls.keyFile.get());
            try {
                tls.keyCert().getKeyManagerFactory(vertx);
            } catch (Exception e) {
                throw new InvalidConfigException(KEY_FILE, "'" + tls.keyFile.get() + "' does not hold a PEM private key matching "
                        + CERT_FILE + ": " + e.getMessage(), e);
            }
        }
        if (tls.caFile.isPresent()) {
            try {
                tls.trust().getTrustManagerFactory(vertx);
            } catch (Exception e) {
                throw new InvalidConfigException(CA_FILE, "'" + tls.caFile.get() + "' is not usable: " + e.getMessage(), e);
            }
        }
        return Optional.of(tls);
    }

    /** The name the server's certificate is verified against (and sent as SNI), if not the URL's host. */
    Optional<String> serverName() {
        return serverName;
    }

    /** Trust (the CA file, else the JVM's defaults) and the client identity, read from the files now. */
    SSLOptions sslOptions() {
        SSLOptions o = new SSLOptions();
        caFile.ifPresent(f -> o.setTrustOptions(trust()));
        if (certFile.isPresent()) o.setKeyCertOptions(keyCert());
        return o;
    }

    /** A fingerprint of the files (paths, sizes, modification times): a change means "reread before connecting". */
    String fingerprint() {
        StringBuilder b = new StringBuilder();
        for (Optional<Path> f : List.of(caFile, certFile, keyFile)) {
            if (f.isEmpty()) continue;
            try {
                b.append(f.get()).append(':').append(Files.size(f.get())).append(':').append(Files.getLastModifiedTime(f.get()).toMillis()).append(';');
            } catch (Exception e) {
                b.append(f.get()).append(":missing;");
            }
        }
        return b.toString();
    }

    boolean changedSince(String fingerprint) {
        return !fingerprint().equals(fingerprint);
    }

    private PemTrustOptions trust() {
        return new PemTrustOptions().addCertPath(caFile.orElseThrow().toString());
    }

    private PemKeyCertOptions keyCert() {
        return new PemKeyCertOptions().setCertPath(certFile.orElseThrow().toString()).setKeyPath(keyFile.orElseThrow().toString());
    }

    private static void checkCertificates(String key, Path file) {
        readable(key, file);
        try (InputStream in = Files.newInputStream(file)) {
            if (CertificateFactory.getInstance("X.509").generateCertificates(in).isEmpty()) {
                throw new InvalidConfigException(key, "'" + file + "' holds no PEM certificate");
            }
        } catch (InvalidConfigException e) {
            throw e;
        } catch (Exception e) {
            throw new InvalidConfigException(key, "'" + file + "' is not a PEM certificate file: " + e.getMessage(), e);
        }
    }

    private static void readable(String key, Path file) {
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new InvalidConfigException(key, "'" + file + "' is not a readable file");
        }
    }

    private static boolean isIpLiteral(String s) {
        try {
            return s.indexOf(':') >= 0 || s.matches("[0-9.]+") ? URI.create("https://" + (s.indexOf(':') >= 0 ? "[" + s + "]" : s)).getHost() != null : false;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static Optional<String> nonBlank(Optional<String> v) {
        return v.map(String::trim).filter(s -> !s.isEmpty());
    }
}
