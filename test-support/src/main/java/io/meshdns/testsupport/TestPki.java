package io.meshdns.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;

/**
 * Certificates for TLS tests, made by the {@code openssl} CLI in a test's directory: a CA, and leaf
 * certificates (server or client) signed by it, each a PEM {@code name.crt} + PKCS#8 {@code name.key}.
 * EC P-256 keys: fast to generate on a loaded machine.
 */
public final class TestPki {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private final Path dir;
    private final String name;

    private TestPki(Path dir, String name) {
        this.dir = dir;
        this.name = name;
    }

    /** A new self-signed CA {@code <name>-ca.crt} in {@code dir}. */
    public static TestPki ca(Path dir, String name) throws Exception {
        Files.createDirectories(dir);
        Path key = dir.resolve(name + "-ca.key");
        Commands.run(TIMEOUT, "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", key.toString(), "-out", dir.resolve(name + "-ca.crt").toString(), "-days", "2",
                "-subj", "/CN=" + name + " test CA", "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign");
        return new TestPki(dir, name);
    }

    public Path caCert() {
        return dir.resolve(name + "-ca.crt");
    }

    /**
     * A leaf {@code <leaf>.crt}/{@code <leaf>.key} signed by this CA, valid for the DNS names and IP addresses
     * given (subjectAltName), for server and client authentication. Written beside and then moved over any
     * earlier pair of that name (a rotation replaces both files, key first).
     */
    public Path[] issue(String leaf, String... altNames) throws Exception {
        Path work = Files.createTempDirectory(dir, leaf + "-");
        Path key = work.resolve("key.pem");
        Path csr = work.resolve("req.csr");
        Path crt = work.resolve("crt.pem");
        Path ext = work.resolve("ext.cnf");
        StringBuilder san = new StringBuilder();
        for (String n : altNames) {
            if (san.length() > 0) san.append(',');
            san.append(n.matches("[0-9.]+|.*:.*") ? "IP:" : "DNS:").append(n);
        }
        Files.writeString(ext, "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n"
                + "extendedKeyUsage=serverAuth,clientAuth\n" + (san.length() > 0 ? "subjectAltName=" + san + "\n" : ""));
        Commands.run(TIMEOUT, "openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", key.toString(), "-out", csr.toString(), "-subj", "/CN=" + leaf);
        Commands.run(TIMEOUT, "openssl", "x509", "-req", "-in", csr.toString(), "-CA", caCert().toString(),
                "-CAkey", dir.resolve(name + "-ca.key").toString(), "-set_serial", String.valueOf(System.nanoTime() & Long.MAX_VALUE),
                "-days", "2", "-extfile", ext.toString(), "-out", crt.toString());
        Path keyOut = dir.resolve(leaf + ".key");
        Path crtOut = dir.resolve(leaf + ".crt");
        Files.move(key, keyOut, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Files.move(crt, crtOut, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return new Path[] {crtOut, keyOut};
    }

    /** The serial number of a PEM certificate, upper-case hex without leading zeros (as {@code BigInteger} prints it). */
    public static String serial(Path cert) throws Exception {
        return hex(Commands.run(TIMEOUT, "openssl", "x509", "-noout", "-serial", "-in", cert.toString()).trim().replace("serial=", ""));
    }

    /** {@code 05AB} → {@code 5AB}: openssl pads serials to whole bytes. */
    public static String hex(String serial) {
        String s = serial.trim().toUpperCase().replaceFirst("^0+(?=.)", "");
        return s;
    }
}
